//go:build race

package minhash

// raceEnabled is set when the race detector is on.
const raceEnabled = true
