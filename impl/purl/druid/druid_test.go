package druid

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// reference is the DESIGN.md pattern; Parse must accept exactly what it accepts.
var reference = regexp.MustCompile(`^(?i:druid:)?[b-df-hjkmnp-tv-zB-DF-HJKMNP-TV-Z]{2}[0-9]{3}[b-df-hjkmnp-tv-zB-DF-HJKMNP-TV-Z]{2}[0-9]{4}$`)

func TestParse(t *testing.T) {
	t.Parallel()
	good := map[string]Druid{
		"bb000kk0000":       "bb000kk0000",
		"druid:bb000kk0000": "bb000kk0000",
		"DRUID:BC123DF4567": "bc123df4567",
		"Zz999Xy1234":       "zz999xy1234",
	}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{
		"", "bb000kk000", "bb000kk00000", "ab000kk0000", "bb000kl0000", // a and l are not consonants of druids
		"be000kk0000", "bb0a0kk0000", "druid:", "druid:bb000kk000", "xdruid:bb000kk0000",
		"../../../etc", "bb000kk0000/", "bb%2f000kk000", "bb000kk000\x00", " bb000kk0000",
		"bb000kk0000.xml", "ｂb000kk0000",
	}
	for _, in := range bad {
		if d, err := Parse(in); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %q, %v; want ErrInvalid", in, d, err)
		}
	}
}

func TestTreePath(t *testing.T) {
	t.Parallel()
	d, err := Parse("druid:bc123df4567")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.TreePath(); got != "bc/123/df/4567" {
		t.Errorf("TreePath = %q", got)
	}
	if got := d.Qualified(); got != "druid:bc123df4567" {
		t.Errorf("Qualified = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"bb000kk0000", "druid:bc123df4567", "DRUID:ZZ999ZZ9999", "../x", "bb000kk000\x00", "druid:druid:bb000kk0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if want := reference.MatchString(s); want != (err == nil) {
			t.Fatalf("Parse(%q) err=%v, reference pattern match=%v", s, err, want)
		}
		if err != nil {
			return
		}
		if string(d) != strings.ToLower(string(d)) || len(d) != 11 {
			t.Fatalf("Parse(%q) = %q: not a lower-case bare druid", s, d)
		}
		if strings.ContainsAny(d.TreePath(), ".\\\x00") {
			t.Fatalf("tree path %q escapes", d.TreePath())
		}
		again, err := Parse(d.Qualified())
		if err != nil || again != d {
			t.Fatalf("round trip of %q: %q, %v", d, again, err)
		}
	})
}
