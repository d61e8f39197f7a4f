package main

import (
	"slices"
	"strings"
	"testing"
)

// TestServiceTable: every service of serviceTable has its base URL flag
// (defaulting under --public-url), its own settings, a constructor and
// contract links, and --services lists them all by default.
func TestServiceTable(t *testing.T) {
	fs := newFlagSetForTest()
	s := newServeSettings(fs, func(string) string { return "" })
	if err := fs.Parse([]string{"--public-url", "https://lib.example.org/site/"}); err != nil {
		t.Fatal(err)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range serviceTable {
		names = append(names, d.name)
		if f := fs.Lookup(d.baseFlag); f == nil || f.Usage != d.baseHelp+" (env "+envName(d.baseFlag)+")" {
			t.Errorf("%s: base URL flag --%s not registered with its help", d.name, d.baseFlag)
		}
		if got, want := s.BaseURLs[d.name], "https://lib.example.org/site"+d.basePath; got != want {
			t.Errorf("%s: base URL %q, want %q", d.name, got, want)
		}
		if s.Service[d.name] == nil || d.build == nil || len(d.contracts(s.BaseURLs[d.name])) == 0 {
			t.Errorf("%s: settings %v, constructor set %v, no contract links", d.name, s.Service[d.name], d.build != nil)
		}
	}
	if !slices.Equal(s.Services, names) || fs.Lookup("services").DefValue != strings.Join(names, ",") {
		t.Errorf("default services %v (flag default %q), want %v", s.Services, fs.Lookup("services").DefValue, names)
	}
}

// TestServiceSettingsRefused: each service's settings are checked
// before anything starts, whether the service runs or not, and the error
// names the flag (or variable) at fault.
func TestServiceSettingsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--purl-location-networks", "reading-room=10.0.0.0/33"}, nil, "--purl-location-networks"},
		{[]string{"--services", "hours", "--purl-access-names", "room=Reading room"}, nil, "--purl-access-names"},
		{[]string{"--purl-location-hours", "room=green"}, nil, "--purl-location-hours"},
		{[]string{"--trusted-proxies", "proxy.example.org"}, nil, "--trusted-proxies"},
		{[]string{"--embed-purl-url", "purl.internal/purl"}, nil, "--embed-purl-url"},
		{[]string{"--services", "soap", "--hours-db", "mysql://db/hours"}, nil, "--hours-db"},
		{nil, map[string]string{"SITESVC_IIIF_BUILD_QUEUE": "many"}, "SITESVC_IIIF_BUILD_QUEUE"},
		{[]string{"--iiif-max-builds", "2000000"}, nil, "--iiif-max-builds"},
		{[]string{"--group-map", "staff=superuser"}, nil, "--group-map"},
	} {
		fs := newFlagSetForTest()
		s := newServeSettings(fs, func(k string) string { return c.env[k] })
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := s.check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: %v, want an error naming %s", c.args, c.env, err, c.want)
		}
	}
	// The parsed values reach the settings the constructors read.
	fs := newFlagSetForTest()
	s := newServeSettings(fs, func(string) string { return "" })
	if err := fs.Parse([]string{"--purl-location-hours", "room=green/reading-room", "--embed-purl-url", "http://purl.internal/purl/", "--hours-db", "postgres://db/hours"}); err != nil {
		t.Fatal(err)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if p := s.Service["purl"].(*purlSettings); p.Patron.locationHours["room"] != [2]string{"green", "reading-room"} {
		t.Errorf("location hours %v", p.Patron.locationHours)
	}
	if e := s.Service["embed"].(*embedSettings); e.PurlURL != "http://purl.internal/purl" {
		t.Errorf("--embed-purl-url %q", e.PurlURL)
	}
	if s.hoursDB() != "postgres://db/hours" || s.signinConfig().DB != "postgres://db/hours" {
		t.Errorf("the sign-in's database %q, Hours' %q", s.signinConfig().DB, s.hoursDB())
	}
}
