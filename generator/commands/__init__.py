"""What the commands do, apart from Click: `options` turns the values Click parsed into the configs the build
and the bundle take, in one place; `running` is how a command runs and reports; `serve` is one command's work."""
