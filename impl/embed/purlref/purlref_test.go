package purlref

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var druidPattern = regexp.MustCompile(`^[b-df-hjkmnp-tv-z]{2}[0-9]{3}[b-df-hjkmnp-tv-z]{2}[0-9]{4}$`)

func TestDruid(t *testing.T) {
	b, err := ParseBase("http://Localhost:8080/purl/")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != "http://Localhost:8080/purl" || b.ObjectURL("bb000kk0000") != "http://Localhost:8080/purl/bb000kk0000" {
		t.Errorf("base %q", b.String())
	}
	ok := map[string]string{
		"http://localhost:8080/purl/bb000kk0000":        "bb000kk0000",
		"http://LOCALHOST:8080/purl/BB000KK0000":        "bb000kk0000",
		"https://localhost:8080/purl/bb000kk0000":       "bb000kk0000",
		"http://localhost:8080/purl/druid:bb000kk0000":  "bb000kk0000",
		"http://localhost:8080/purl/DRUID:bb000kk0000":  "bb000kk0000",
		"http://localhost:8080/purl/bb000kk0000/":       "bb000kk0000",
		"http://localhost:8080/purl/bb000kk0000.html":   "bb000kk0000",
		"http://localhost:8080/purl/bb000kk0000#viewer": "bb000kk0000",
		"http://localhost:8080/purl/zz999zz9999":        "zz999zz9999",
	}
	for in, want := range ok {
		got, err := b.Druid(in)
		if err != nil || got != want {
			t.Errorf("Druid(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{
		"",
		"bb000kk0000",
		"/purl/bb000kk0000",
		"http://localhost:8081/purl/bb000kk0000",
		"http://localhost/purl/bb000kk0000",
		"http://evil.example/purl/bb000kk0000",
		"http://localhost:8080.evil.example/purl/bb000kk0000",
		"http://user@localhost:8080/purl/bb000kk0000",
		"ftp://localhost:8080/purl/bb000kk0000",
		"javascript://localhost:8080/purl/bb000kk0000",
		"javascript:alert(1)",
		"http://localhost:8080/purl/bb000kk0000?x=1",
		"http://localhost:8080/purl/bb000kk0000?",
		"http://localhost:8080/purl/bb000kk0000.xml",
		"http://localhost:8080/purl/bb000kk0000/iiif/manifest",
		"http://localhost:8080/purl/../purl/bb000kk0000",
		"http://localhost:8080/purl/%62b000kk0000",
		"http://localhost:8080/purlx/bb000kk0000",
		"http://localhost:8080/bb000kk0000",
		"http://localhost:8080/purl/ab000kk0000",  // vowel
		"http://localhost:8080/purl/bb000kl0000",  // l
		"http://localhost:8080/purl/bb00kk00000",  // shape
		"http://localhost:8080/purl/bb000kk00000", // too long
		"http://localhost:8080/purl/druid:",
		"http://localhost:8080/purl/bb000kk0000\n",
		"http://localhost:8080/purl/" + strings.Repeat("b", 3000),
	} {
		if d, err := b.Druid(in); err == nil || !errors.Is(err, ErrNotPURL) {
			t.Errorf("Druid(%q) = %q, %v; want ErrNotPURL", in, d, err)
		}
	}
}

func TestBaseAtRoot(t *testing.T) {
	b, err := ParseBase("https://purl.example.org")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.Druid("https://purl.example.org/bb000kk0000"); err != nil || d != "bb000kk0000" {
		t.Errorf("%q %v", d, err)
	}
	if _, err := b.Druid("https://purl.example.org/x/bb000kk0000"); err == nil {
		t.Error("nested path accepted")
	}
}

func TestParseBaseRejects(t *testing.T) {
	for _, in := range []string{"", "localhost:8080/purl", "ftp://x/purl", "http:///purl", "http://x/purl?a=b", "http://x/purl#f", "http://u:p@x/purl"} {
		if _, err := ParseBase(in); err == nil {
			t.Errorf("ParseBase(%q) accepted", in)
		}
	}
}

// FuzzDruid checks the url handling's invariants on arbitrary input: no
// panic; anything accepted is a well-formed druid whose canonical PURL is
// under the base and maps back to the same druid; the canonical URL never
// carries anything of the input but the druid.
func FuzzDruid(f *testing.F) {
	for _, s := range []string{
		"http://localhost:8080/purl/bb000kk0000",
		"https://LOCALHOST:8080/purl/druid:BB000KK0000.html",
		"http://localhost:8080/purl/bb000kk0000#x",
		"http://localhost:8080/purl/bb000kk0000?x",
		"javascript:alert(1)",
		`"><script>alert(1)</script>`,
		"http://localhost:8080/purl/%2e%2e/bb000kk0000",
		"http://[::1]:8080/purl/bb000kk0000",
		"//localhost:8080/purl/bb000kk0000",
		"http://localhost:8080@evil/purl/bb000kk0000",
	} {
		f.Add(s)
	}
	b, err := ParseBase("http://localhost:8080/purl")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := b.Druid(raw)
		if err != nil {
			if !errors.Is(err, ErrNotPURL) {
				t.Fatalf("error %v is not ErrNotPURL", err)
			}
			return
		}
		if !druidPattern.MatchString(d) {
			t.Fatalf("accepted %q as druid %q", raw, d)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("accepted unparsable %q", raw)
		}
		if strings.ToLower(u.Host) != "localhost:8080" || u.RawQuery != "" || u.User != nil {
			t.Fatalf("accepted %q outside the base", raw)
		}
		canon := b.ObjectURL(d)
		if d2, err := b.Druid(canon); err != nil || d2 != d {
			t.Fatalf("canonical %q of %q does not map back: %q %v", canon, raw, d2, err)
		}
		if n, ok := NormalizeDruid(d); !ok || n != d {
			t.Fatalf("NormalizeDruid(%q) = %q %v", d, n, ok)
		}
	})
}

func TestContains(t *testing.T) {
	b, err := ParseBase("http://Localhost:8080/purl")
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]bool{
		"http://localhost:8080/purl/bb000kk0000.xml":   true,
		"http://LOCALHOST:8080/purl/bb000kk0000.xml":   true,
		"http://localhost:8080/purl/x/y":               true,
		"https://localhost:8080/purl/bb000kk0000.xml":  false, // another scheme
		"http://localhost:8081/purl/bb000kk0000.xml":   false, // another port
		"http://localhost:8080/purlx/bb000kk0000.xml":  false, // a sibling path
		"http://localhost:8080/admin":                  false,
		"http://localhost:8080/purl":                   false,
		"http://u:p@localhost:8080/purl/bb000kk0000":   false,
		"http://evil.example/purl/bb000kk0000.xml":     false,
		"http://localhost:8080/purl/%2e%2e/admin/file": false, // dot segments leave the base
		"http://localhost:8080/purl/../admin/file":     false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Contains(u); got != want {
			t.Errorf("Contains(%s) = %v, want %v", raw, got, want)
		}
	}
}
