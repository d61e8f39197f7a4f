package purl

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/record"
)

// accessName is the name patrons read for a login group or location:
// the configured display name (Config.AccessNames, "group:<slug>" or
// "location:<slug>"), else the slug itself.
func (s *Service) accessName(kind record.AccessKind, slug string) string {
	if name := strings.TrimSpace(s.cfg.AccessNames[kind.String()+":"+slug]); name != "" {
		return name
	}
	return slug
}

// accessSummary says in one line who may read the files at now, in the
// words patrons read (display names, never "login group" slugs).
func (s *Service) accessSummary(r record.Rights, now time.Time) string {
	var who string
	switch r.Read {
	case record.AccessWorld:
		who = "Available to anyone"
	case record.AccessGroup:
		who = "Available to " + s.accessName(r.Read, r.ReadName)
	case record.AccessLocation:
		who = "Available at " + s.accessName(r.Read, r.ReadName)
	default:
		who = "Citation only: the files are not available online"
	}
	if r.Embargoed(now) {
		until := r.EmbargoUntil.Format(pageDateFormat)
		if r.Read == record.AccessNone {
			return fmt.Sprintf("Embargoed until %s; the files are not available before then", until)
		}
		return fmt.Sprintf("Embargoed until %s; then %s", until, strings.ToLower(who[:1])+who[1:])
	}
	return who
}

// accessHelp says what a patron who cannot download the files can do,
// one sentence per item; nil when anyone may download them.
func (s *Service) accessHelp(r record.Rights, now time.Time) []string {
	if r.WorldReadable(now) {
		return nil
	}
	var help []string
	if r.Embargoed(now) {
		until := r.EmbargoUntil.Format(pageDateFormat)
		if r.Read == record.AccessNone {
			help = append(help, fmt.Sprintf("The files are under embargo until %s.", until))
		} else {
			help = append(help, fmt.Sprintf("The files are under embargo until %s; they can be downloaded from then on.", until))
		}
	}
	switch r.Read {
	case record.AccessGroup:
		help = append(help, fmt.Sprintf("The files can be read by %s, with the credentials the library gives them.", s.accessName(r.Read, r.ReadName)))
	case record.AccessLocation:
		help = append(help, fmt.Sprintf("The files can be read at %s: visit it to use them.", s.accessName(r.Read, r.ReadName)))
	case record.AccessNone:
		if !r.Embargoed(now) {
			help = append(help, "The files of this object are not available online; the description and citation are.")
		}
	}
	return help
}

// contactLink turns Config.AccessContact into a link target: a mailto:
// URL for an e-mail address, the URL itself for an http(s) URL, "" for
// plain text.
func contactLink(contact string) string {
	c := strings.TrimSpace(contact)
	if u, err := url.Parse(c); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return c
	}
	if a, err := mail.ParseAddress(c); err == nil && a.Address == c {
		return "mailto:" + c
	}
	return ""
}
