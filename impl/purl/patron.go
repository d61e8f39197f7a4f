package purl

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/sitelib/sitesvc/impl/auth"
)

// AccessTokens resolves the access tokens the IIIF Authorization Flow
// hands viewers (impl/purl/iiifauth implements it): a viewer on another
// origin sends one as a bearer token to tiles, info.json and files.
type AccessTokens interface {
	// Principal is the signed-in person an access token was issued to,
	// false for a token it did not issue or one expired or revoked.
	Principal(token string) (auth.Principal, bool)
}

// patron is who a read request comes from, for the rights check, as the
// edge found it (apiserve.Bearer.Reads: an IIIF access token or a token
// of the token file, else the browser's signed-in session). found is
// false for an anonymous request; a bearer token nobody issued is a
// refusal (status, msg), never taken for anonymous.
func (s *Service) patron(r *http.Request) (p auth.Principal, found bool, how string, status int, msg string) {
	p, err := auth.PrincipalFrom(r.Context())
	switch {
	case errors.Is(err, auth.ErrUnknownToken) && s.cfg.Tokens == nil:
		return auth.Principal{}, false, "", http.StatusUnauthorized, "unauthorized: unknown bearer token (this service accepts no tokens; sign in instead)"
	case errors.Is(err, auth.ErrUnknownToken):
		return auth.Principal{}, false, "", http.StatusUnauthorized, "unauthorized: unknown bearer token"
	case err != nil:
		return auth.Principal{}, false, "", 0, ""
	case p.Via == auth.CredentialSession:
		return p, true, fmt.Sprintf("the account %q", p.Name), 0, ""
	}
	return p, true, fmt.Sprintf("the %s of %q", p.Via, p.Name), 0, ""
}

// signInHint says how an anonymous reader can meet a group grant: sign
// in when the site has a sign-in, else a bearer token.
func (s *Service) signInHint(roles string) string {
	if s.cfg.Sessions != nil && s.cfg.Sessions.Configured() && s.cfg.SignInURL != "" {
		return fmt.Sprintf("sign in at %s or send a bearer token with the role %s", s.cfg.SignInURL, roles)
	}
	return "send a bearer token with the role " + roles
}
