// Package druid parses digital repository object identifiers (druids):
// two consonants, three digits, two consonants, four digits, with an
// optional "druid:" prefix, case-insensitive. A parsed Druid is always
// lower case and safe to use as a path: it is made only of the letters and
// digits the pattern allows.
package druid

import (
	"errors"
	"fmt"
	"path"
)

// Druid is a valid, lower-case druid without its prefix ("bb000kk0000").
// The zero value is not a valid druid.
type Druid string

// Prefix is the namespace prefix of a qualified druid.
const Prefix = "druid:"

// ErrInvalid is returned (wrapped) for anything that is not a druid.
var ErrInvalid = errors.New("not a druid")

// Parse accepts "bb000kk0000", "druid:bb000kk0000" in any case.
func Parse(s string) (Druid, error) {
	bare := s
	if len(bare) >= len(Prefix) && equalFold(bare[:len(Prefix)], Prefix) {
		bare = bare[len(Prefix):]
	}
	if len(bare) != 11 {
		return "", fmt.Errorf("%w: %q", ErrInvalid, truncate(s))
	}
	var b [11]byte
	same := true // bare is already lower case: it is the druid itself
	for i := 0; i < 11; i++ {
		c := lower(bare[i])
		ok := false
		switch i {
		case 0, 1, 5, 6:
			ok = isConsonant(c)
		default:
			ok = c >= '0' && c <= '9'
		}
		if !ok {
			return "", fmt.Errorf("%w: %q", ErrInvalid, truncate(s))
		}
		b[i] = c
		same = same && c == bare[i]
	}
	if same {
		return Druid(bare), nil // no copy: every read parses its druid
	}
	return Druid(b[:]), nil
}

// Qualified is the druid with its prefix, as in publicObject/@objectId.
func (d Druid) Qualified() string { return Prefix + string(d) }

// String is the bare druid.
func (d Druid) String() string { return string(d) }

// TreePath is the druid tree directory of the object, relative to the
// store root: "bb/000/kk/0000".
func (d Druid) TreePath() string {
	s := string(d)
	return path.Join(s[0:2], s[2:5], s[5:7], s[7:11])
}

// isConsonant reports whether c is one of the letters druids use: the
// lower-case consonants without "l" (b-d, f-h, j-k, m-n, p-t, v-z).
func isConsonant(c byte) bool {
	switch {
	case c >= 'b' && c <= 'd', c >= 'f' && c <= 'h', c == 'j', c == 'k',
		c == 'm', c == 'n', c >= 'p' && c <= 't', c >= 'v' && c <= 'z':
		return true
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// truncate keeps error messages short whatever the input.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
