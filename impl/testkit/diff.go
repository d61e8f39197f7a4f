package testkit

import "slices"

// Diff compares two lists of strings as multisets: missing is what want holds more often
// than got, extra what got holds more often than want, each sorted. Both empty means the
// lists hold the same strings as many times each, in any order.
func Diff(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	for s, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, s)
		}
		for ; n < 0; n++ {
			extra = append(extra, s)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}
