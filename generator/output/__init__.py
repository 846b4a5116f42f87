"""Writing without harm: `write` stages a site and swaps it in atomically, `locks` keeps one build per
output, `manifest` records what a build read and wrote for the next one, and `vault` keeps every log read.

The vault is here, after the stages, because it stores and hashes as the manifest does; discover names the
logs it keeps only by what reading them needs (`stages.discover.KeptCopy`)."""
