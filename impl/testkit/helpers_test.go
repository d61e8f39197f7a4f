package testkit

import (
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got      []string
		missing, extra []string
	}{
		{nil, nil, nil, nil},
		{[]string{"a", "b"}, []string{"b", "a"}, nil, nil},
		{[]string{"a", "a", "b"}, []string{"a", "c"}, []string{"a", "b"}, []string{"c"}},
		{nil, []string{"x", "x"}, nil, []string{"x", "x"}},
	} {
		missing, extra := Diff(c.want, c.got)
		if !slices.Equal(missing, c.missing) || !slices.Equal(extra, c.extra) {
			t.Errorf("Diff(%q, %q) = %q, %q; want %q, %q", c.want, c.got, missing, extra, c.missing, c.extra)
		}
	}
}

func TestAccession(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"gi|1234|gb|AB097865.1| HIV-1 genes": "AB097865",
		"emb|X12345.2|":                      "X12345",
		"dbj|LC0001|":                        "LC0001",
		"KC693500 HIV-2 integrase":           "KC693500",
		"plain":                              "plain",
	} {
		if got := Accession(header); got != want {
			t.Errorf("Accession(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestOnceLoadsOnce(t *testing.T) {
	t.Parallel()
	var o Once[int]
	calls := 0
	load := func() (int, error) { calls++; return 42, nil }
	for range 3 {
		if v := o.Get(t, load); v != 42 {
			t.Fatalf("Get = %d", v)
		}
	}
	if calls != 1 {
		t.Errorf("load ran %d times", calls)
	}
}
