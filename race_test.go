//go:build race

package neardup

const raceEnabled = true
