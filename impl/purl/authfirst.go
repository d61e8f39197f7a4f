package purl

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
)

// authorizeFirst is an echo Pre middleware (after route): a write (PUT,
// DELETE) is refused 401/403 for a missing, unknown or powerless token
// before anything reads its body. The validator's own security check
// (authenticate) comes too late for that: kin-openapi reads the whole body
// before it calls the authentication function. route has already bounded a
// PUT body to record.MaxDocumentBytes, the largest document the service
// accepts.
func (s *Service) authorizeFirst(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodPut && req.Method != http.MethodDelete {
			return next(c)
		}
		token, ok := auth.BearerToken(req)
		if !ok {
			return &apiserve.Error{Status: http.StatusUnauthorized, Message: "unauthorized: publishing needs a bearer token with the role publisher (sitesvc tokens add --role publisher)"}
		}
		if s.cfg.Tokens == nil {
			return &apiserve.Error{Status: http.StatusUnauthorized, Message: "unauthorized: this service accepts no tokens"}
		}
		p, ok := s.cfg.Tokens.Authenticate(token)
		if !ok {
			return &apiserve.Error{Status: http.StatusUnauthorized, Message: "unauthorized: unknown bearer token"}
		}
		if !p.CanPublish() {
			return &apiserve.Error{Status: http.StatusForbidden, Message: fmt.Sprintf("forbidden: the token of %q has no role publisher or admin", p.Name)}
		}
		if req.Method == http.MethodDelete && req.Body != nil && req.Body != http.NoBody {
			// A DELETE has no document: not one byte of a body is read.
			if req.ContentLength > 0 {
				return &apiserve.Error{Status: http.StatusRequestEntityTooLarge, Message: "too large: DELETE takes no body"}
			}
			req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, 0)
		}
		return next(c)
	}
}
