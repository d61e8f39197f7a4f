package purl

import (
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// fileAccess decides whether the request may read every file of rec (the
// zip of them all):
// 0 when it may, else the status and the reason of the first refusal. A
// file with rights of its own must admit the request too.
func (s *Service) fileAccess(r *http.Request, rec *record.Record) (int, string) {
	if status, msg := s.admits(r, rec, rec.Rights.Object, "the files of "+rec.Druid.Qualified()); status != 0 {
		return status, msg
	}
	for _, f := range rec.Files() {
		if a, ok := rec.Rights.Files[f.Name]; ok {
			if status, msg := s.admits(r, rec, a, fmt.Sprintf("the file %q of %s", f.Name, rec.Druid.Qualified())); status != 0 {
				return status, msg
			}
		}
	}
	return 0, ""
}

// fileAccessFor decides whether the request may read the file called name:
// by its own rights when rightsMetadata gives it some, else the object's.
func (s *Service) fileAccessFor(r *http.Request, rec *record.Record, name string) (int, string) {
	what := "the files of " + rec.Druid.Qualified()
	if _, own := rec.Rights.Files[name]; own {
		what = fmt.Sprintf("the file %q of %s", name, rec.Druid.Qualified())
	}
	return s.admits(r, rec, rec.Rights.ForFile(name), what)
}

// admits applies one access: embargo first, then any one grant admits
// the request (world; a location's network; a bearer token with a group's
// or location's role). No grant: nobody (citation only).
func (s *Service) admits(r *http.Request, rec *record.Record, a record.Access, what string) (int, string) {
	now := s.cfg.Now()
	switch {
	case a.Embargoed(now):
		return http.StatusForbidden, fmt.Sprintf("forbidden: %s are embargoed until %s", what, a.EmbargoUntil.Format("2006-01-02"))
	case len(a.Grants) == 0:
		return http.StatusForbidden, fmt.Sprintf("forbidden: %s are not available (citation only)", what)
	case a.World():
		return 0, ""
	}
	var who, roles []string
	for _, g := range a.Grants {
		switch g.Kind {
		case record.AccessGroup:
			who = append(who, fmt.Sprintf("members of the login group %q", g.Name))
			roles = append(roles, auth.RoleGroupPrefix+g.Name)
		case record.AccessLocation:
			if s.atLocation(r, g.Name) {
				return 0, ""
			}
			who = append(who, fmt.Sprintf("readers at the location %q", g.Name))
			roles = append(roles, auth.RoleLocationPrefix+g.Name)
		}
	}
	readers := strings.Join(who, " or ")
	p, found, how, status, msg := s.patron(r) // patron.go: bearer token or session
	switch {
	case status != 0:
		return status, msg
	case !found:
		return http.StatusUnauthorized, fmt.Sprintf("unauthorized: %s are readable by %s; %s", what, readers, s.signInHint(strings.Join(roles, " or ")))
	}
	for _, role := range roles {
		if p.Has(role) {
			return 0, ""
		}
	}
	return http.StatusForbidden, fmt.Sprintf("forbidden: %s lacks the role %s; %s are readable by %s", how, strings.Join(roles, " or "), what, readers)
}

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
// words patrons read (display names, never "login group" slugs): every
// grant of the object (any one admits), and a note when some files have
// rights of their own.
func (s *Service) accessSummary(r record.Rights, now time.Time) string {
	who := s.grantees(r.Object)
	if r.Embargoed(now) {
		until := r.EmbargoUntil.Format(pageDateFormat)
		if len(r.Object.Grants) == 0 {
			who = fmt.Sprintf("Embargoed until %s; the files are not available before then", until)
		} else {
			who = fmt.Sprintf("Embargoed until %s; then %s", until, strings.ToLower(who[:1])+who[1:])
		}
	}
	if len(r.Files) > 0 {
		who += "; some files have access of their own"
	}
	return who
}

// grantees is who an access admits, as a sentence.
func (s *Service) grantees(a record.Access) string {
	if a.World() {
		return "Available to anyone"
	}
	var who []string
	for _, g := range a.Grants {
		switch g.Kind {
		case record.AccessGroup:
			who = append(who, "to "+s.accessName(g.Kind, g.Name))
		case record.AccessLocation:
			who = append(who, "at "+s.accessName(g.Kind, g.Name))
		}
	}
	if len(who) == 0 {
		return "Citation only: the files are not available online"
	}
	return "Available " + strings.Join(who, " or ")
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
		if len(r.Object.Grants) == 0 {
			help = append(help, fmt.Sprintf("The files are under embargo until %s.", until))
		} else {
			help = append(help, fmt.Sprintf("The files are under embargo until %s; they can be downloaded from then on.", until))
		}
	}
	for _, g := range r.Object.Grants {
		switch g.Kind {
		case record.AccessGroup:
			if s.cfg.Sessions != nil && s.cfg.Sessions.Configured() {
				// patron.go: a signed-in member reads them here and in the viewer.
				help = append(help, fmt.Sprintf("The files can be read by %s: sign in with your library account.", s.accessName(g.Kind, g.Name)))
			} else {
				help = append(help, fmt.Sprintf("The files can be read by %s, with the credentials the library gives them.", s.accessName(g.Kind, g.Name)))
			}
		case record.AccessLocation:
			help = append(help, fmt.Sprintf("The files can be read at %s: visit it to use them.", s.accessName(g.Kind, g.Name)))
		}
	}
	if len(r.Object.Grants) == 0 && !r.Embargoed(now) {
		help = append(help, "The files of this object are not available online; the description and citation are.")
	}
	if len(r.Files) > 0 {
		help = append(help, "Some files have access of their own, which their links apply.")
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

// fileAccessNote says in a few words who may read a file that anyone may
// not ("Stanford users only", "embargoed until June 1, 2027", "not
// available"), for its row in the page's file list.
func (s *Service) fileAccessNote(a record.Access, now time.Time) string {
	if a.Embargoed(now) {
		return "embargoed until " + a.EmbargoUntil.Format(pageDateFormat)
	}
	who := s.grantees(a)
	if len(a.Grants) == 0 {
		return "not available online"
	}
	return "a" + strings.TrimPrefix(who, "A") + " only"
}

// pageSignInURL is the sign-in link of the page of a restricted object, back
// to purl (the page) afterwards: "" unless the site has a sign-in and a
// login group of the object's (or of one of its files) admits readers.
func (s *Service) pageSignInURL(r record.Rights, purl string) string {
	if s.cfg.Sessions == nil || !s.cfg.Sessions.Configured() || s.cfg.SignInURL == "" {
		return ""
	}
	hasGroup := func(a record.Access) bool {
		for _, g := range a.Grants {
			if g.Kind == record.AccessGroup {
				return true
			}
		}
		return false
	}
	group := hasGroup(r.Object)
	for _, a := range r.Files {
		group = group || hasGroup(a)
	}
	if !group {
		return ""
	}
	return s.cfg.SignInURL + "?" + url.Values{"return": {purl}}.Encode()
}
