package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseLocationHours(t *testing.T) {
	got, err := parseLocationHours(" reading-room = green/special-collections ; vault=law/archives")
	if err != nil || got["reading-room"] != [2]string{"green", "special-collections"} || got["vault"] != [2]string{"law", "archives"} {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"reading-room", "reading-room=green", "=green/x", "r=green/", "r=/x", "r=a/b/c"} {
		if _, err := parseLocationHours(bad); err == nil || !strings.Contains(err.Error(), "location=library/location") {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

func TestClock(t *testing.T) {
	for in, want := range map[string]string{"09:00": "9 AM", "17:30": "5:30 PM", "00:00": "12 AM", "12:05": "12:05 PM"} {
		tm, _ := time.Parse("15:04", in)
		if got := clock(tm); got != want {
			t.Errorf("clock(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestPatronSettings(t *testing.T) {
	p, err := trustedProxies("", "10.0.0.1")
	if err != nil || len(p) != 1 || p[0].String() != "10.0.0.1/32" {
		t.Errorf("default from --auth-proxy-addresses: %v %v", p, err)
	}
	if p, err = trustedProxies("192.0.2.0/24, 2001:db8::1", "10.0.0.1"); err != nil || len(p) != 2 {
		t.Errorf("--trusted-proxies: %v %v", p, err)
	}
	if _, err := trustedProxies("proxy.example.org", ""); err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
		t.Errorf("a host name accepted: %v", err)
	}
}
