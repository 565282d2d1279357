//go:build !race

package neardup

const raceEnabled = false
