//go:build !race

package simhash

// raceEnabled is set when the race detector is on.
const raceEnabled = false
