package iiifauth

import (
	"encoding/json"
	"fmt"
)

// Contexts and profiles of the specifications.
const (
	Context2 = "http://iiif.io/api/auth/2/context.json"
	Context1 = "http://iiif.io/api/auth/1/context.json"

	profileLogin1  = "http://iiif.io/api/auth/1/login"
	profileToken1  = "http://iiif.io/api/auth/1/token"
	profileLogout1 = "http://iiif.io/api/auth/1/logout"
)

type langMap map[string][]string

func en(s string) langMap { return langMap{"en": {s}} }

type service2 struct {
	Context      string     `json:"@context,omitempty"`
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Profile      string     `json:"profile,omitempty"`
	Label        langMap    `json:"label,omitempty"`
	Heading      langMap    `json:"heading,omitempty"`
	Note         langMap    `json:"note,omitempty"`
	ConfirmLabel langMap    `json:"confirmLabel,omitempty"`
	Service      []service2 `json:"service,omitempty"`
}

type service1 struct {
	Context            string     `json:"@context,omitempty"`
	ID                 string     `json:"@id"`
	Profile            string     `json:"profile"`
	Label              string     `json:"label,omitempty"`
	Header             string     `json:"header,omitempty"`
	Description        string     `json:"description,omitempty"`
	ConfirmLabel       string     `json:"confirmLabel,omitempty"`
	FailureHeader      string     `json:"failureHeader,omitempty"`
	FailureDescription string     `json:"failureDescription,omitempty"`
	Service            []service1 `json:"service,omitempty"`
}

// Words of the services' descriptions.
const (
	signInLabel   = "Sign in to view"
	signOutLabel  = "Sign out"
	noAccessTitle = "Your account does not include access to this item"
)

func signInNote(who string) string {
	return fmt.Sprintf("This item is available to %s. Sign in with your library account to view it.", who)
}

// ProbeService is the AuthProbeService2 of file of object, as one JSON
// object for a content resource's or an image service's "service" list.
// With signIn it holds the access service (profile active) with its
// token and logout services, whose words name who, the readers in
// patrons' words; without (a file only a location admits) the probe
// alone, which a viewer asks before showing the file. withContext adds
// the specification's @context (for documents whose own @context does not
// include it, such as info.json).
func (s *Service) ProbeService(object, file, who string, signIn, withContext bool) json.RawMessage {
	p := service2{ID: s.probeURL(object, file), Type: "AuthProbeService2"}
	if signIn {
		p.Service = []service2{{
			ID: s.accessURL(), Type: "AuthAccessService2", Profile: "active",
			Label: en(signInLabel), Heading: en("Sign in"), Note: en(signInNote(who)), ConfirmLabel: en("Sign in"),
			Service: []service2{
				{ID: s.tokenURL(), Type: "AuthAccessTokenService2"},
				{ID: s.logoutURL(), Type: "AuthLogoutService2", Label: en(signOutLabel)},
			},
		}}
	}
	if withContext {
		p.Context = Context2
	}
	b, _ := json.Marshal(p) // plain structs of strings: cannot fail
	return b
}

// LoginService1 is the IIIF Authentication API 1.0 login service (with
// its token and logout services) for an image service's info.json, the
// form Mirador 3 signs in through.
func (s *Service) LoginService1(who string) json.RawMessage {
	l := service1{Context: Context1, ID: s.accessURL(), Profile: profileLogin1,
		Label: signInLabel, Header: "Sign in", Description: signInNote(who), ConfirmLabel: "Sign in",
		FailureHeader: noAccessTitle, FailureDescription: s.noAccessNote(who),
		Service: []service1{
			{ID: s.token1URL(), Profile: profileToken1},
			{ID: s.logoutURL(), Profile: profileLogout1, Label: signOutLabel},
		}}
	b, _ := json.Marshal(l) // plain structs of strings: cannot fail
	return b
}

// noAccessNote explains a refusal to a signed-in person.
func (s *Service) noAccessNote(who string) string {
	note := fmt.Sprintf("This item is available to %s.", who)
	if s.cfg.ContactNote != "" {
		note += " " + s.cfg.ContactNote
	}
	return note
}
