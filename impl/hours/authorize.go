package hours

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
)

// Authorisation comes before work: the validator checks security before it
// reads a request body, so the role check and the body limit of a write
// live in that check (authorizeFirst, an echo Pre middleware). A token
// without the right role is refused 403 without the body being read or
// parsed, and no write body is read beyond what its operation's largest
// valid document needs (docs/hours.md, "Limits").

// adminOnlyOperations are the writes only an admin may make; every other
// write is scoped to the library in its path (admin or editor:<library>).
var adminOnlyOperations = map[string]bool{
	"createLibrary": true,
	"deleteLibrary": true,
}

// writeBodyLimits is the body limit of each write operation with a request
// document, in bytes: the largest valid document of the operation with room
// to spare for pretty-printing. Every string attribute is bounded by the
// contract (names 200 characters, notes 500, slugs 64, periods 6 a day,
// days 7), so the largest valid compact documents are a few KiB even with
// every character written as a \uXXXX surrogate pair (TestWriteBodyLimits
// builds them); 64 KiB holds them indented, and nothing larger can be valid.
var writeBodyLimits = map[string]int64{
	"createLibrary":   16 << 10,
	"updateLibrary":   16 << 10,
	"createLocation":  16 << 10,
	"updateLocation":  16 << 10,
	"createTerm":      16 << 10,
	"updateTerm":      16 << 10,
	"createSchedule":  64 << 10,
	"updateSchedule":  64 << 10,
	"createException": 64 << 10,
	"updateException": 64 << 10,
}

// defaultWriteBodyLimit bounds a write the table does not name (an
// operation added to the contract later): refused rather than unbounded.
const defaultWriteBodyLimit = 16 << 10

// authorizeFirst is an echo Pre middleware: for an operation that
// requires a token it resolves the token, checks its role against the
// operation and the library in the path, and bounds the body, all before
// anything reads the body. (The validator's own security check comes too
// late for this: kin-openapi reads the whole body before it calls the
// authentication function.)
func (s *Service) authorizeFirst(contract *apiserve.Contract) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			switch req.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c) // reads need no token: no routing on their hot path
			}
			op, ok := contract.Operation(req)
			if !ok || op.Security == nil || len(*op.Security) == 0 {
				return next(c) // a read, or no operation: the router answers
			}
			p, err := s.principalOf(req)
			if err != nil {
				return err
			}
			// The writes at a resource's links.self (…Json) are their
			// counterparts' with the same rules.
			opID := strings.TrimSuffix(op.OperationID, "Json")
			if _, err := s.authorize(context.WithValue(req.Context(), principalKey{}, p), libraryInPath(req.URL.EscapedPath()), adminOnlyOperations[opID]); err != nil {
				return err
			}
			limit, ok := writeBodyLimits[opID]
			switch {
			case op.RequestBody == nil:
				// A DELETE has no document, but JSON:API clients may send
				// one anyway (kitsu sends the resource): read up to the
				// default limit and ignored.
				limit = defaultWriteBodyLimit
			case !ok:
				limit = defaultWriteBodyLimit
			}
			if req.ContentLength > limit {
				return &apiserve.Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body too large (limit %d bytes for %s)", limit, op.OperationID)}
			}
			if req.Body != nil && req.Body != http.NoBody {
				req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
			}
			if op.RequestBody != nil {
				if err := oneJSONDocument(req); err != nil {
					return err
				}
			} else if req.Body != nil && req.Body != http.NoBody {
				// The ignored body of a DELETE is drained here, within its
				// limit, so that an endless one is 413 rather than a delete.
				if _, err := io.Copy(io.Discard, req.Body); err != nil {
					return &apiserve.Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body too large (limit %d bytes for %s, which takes no document)", limit, op.OperationID), Err: err}
				}
				req.Body = http.NoBody
			}
			return next(c)
		}
	}
}

// principalOf resolves the bearer token of req (401 when there is none or
// it is unknown).
func (s *Service) principalOf(req *http.Request) (auth.Principal, error) {
	token, ok := auth.BearerToken(req)
	if !ok {
		return auth.Principal{}, &apiserve.Error{Status: http.StatusUnauthorized, Message: "this operation needs a bearer token (Authorization: Bearer …)"}
	}
	if s.cfg.Tokens == nil {
		return auth.Principal{}, &apiserve.Error{Status: http.StatusUnauthorized, Message: "no tokens are configured"}
	}
	p, ok := s.cfg.Tokens.Authenticate(token)
	if !ok {
		return auth.Principal{}, &apiserve.Error{Status: http.StatusUnauthorized, Message: "unknown bearer token"}
	}
	return p, nil
}

// libraryInPath is the library_id of a path "/libraries/{library_id}…"
// ("" for "/libraries" itself).
func libraryInPath(escaped string) string {
	rest, ok := strings.CutPrefix(escaped, "/libraries/")
	if !ok {
		return ""
	}
	seg, _, _ := strings.Cut(rest, "/")
	if u, err := url.PathUnescape(seg); err == nil {
		seg = u
	}
	// "/libraries/{library_id}.json" names the library without the suffix.
	return strings.TrimSuffix(seg, ".json")
}
