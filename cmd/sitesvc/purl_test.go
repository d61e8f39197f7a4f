package main

import (
	"log/slog"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestParseLocationNetworks(t *testing.T) {
	nets, err := parseLocationNetworks(" reading-room=10.1.2.3/16, 192.168.5.0/24 ; lab=2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	if len(nets["reading-room"]) != 2 || nets["reading-room"][0] != netip.MustParsePrefix("10.1.0.0/16") || len(nets["lab"]) != 1 {
		t.Errorf("nets = %v", nets)
	}
	for _, bad := range []string{"reading-room", "=10.0.0.0/8", "x=10.0.0.0", "x=banana"} {
		if _, err := parseLocationNetworks(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if nets, err := parseLocationNetworks(""); err != nil || len(nets) != 0 {
		t.Errorf("empty: %v %v", nets, err)
	}
}

func TestModsSchemaSetting(t *testing.T) {
	testkit.RequireTool(t, "xmllint")
	m, err := openMODSSchema("", slog.New(slog.DiscardHandler))
	if m == nil || err != nil {
		t.Errorf("empty setting (the built-in schema): %v %v", m, err)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
	if _, err := openMODSSchema(filepath.Join(t.TempDir(), "missing.xsd"), slog.New(slog.DiscardHandler)); err == nil {
		t.Error("a missing XSD is accepted")
	}
}

func TestParseAccessNames(t *testing.T) {
	names, err := parseAccessNames(" group:sitelib = Members of the university ; location:reading-room=the reading room, Green Library")
	if err != nil || names["group:sitelib"] != "Members of the university" || names["location:reading-room"] != "the reading room, Green Library" || len(names) != 2 {
		t.Fatalf("%v %v", names, err)
	}
	for _, bad := range []string{"sitelib=Members", "role:x=Y", "group:=Y", "group:x=", "group:x=A;group:x=B"} {
		if _, err := parseAccessNames(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
