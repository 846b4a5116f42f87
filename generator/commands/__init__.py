"""What each command does, apart from Click: `options` turns the values Click parsed into the configs the
build and the bundle take, in one place."""
