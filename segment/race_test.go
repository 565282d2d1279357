//go:build race

package segment

const raceEnabled = true
