//go:build !race

package sanctions_test

const raceEnabled = false
