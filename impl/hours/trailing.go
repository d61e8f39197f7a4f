package hours

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// oneDocument is the echo Pre middleware applying oneJSONDocument to the
// writes that take a document (after the edge has authorised and bounded
// them).
func (o *operations) oneDocument(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if (req.Method == http.MethodPost || req.Method == http.MethodPatch || req.Method == http.MethodPut) && o.takesDocument(req) {
			if err := oneJSONDocument(req); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// oneJSONDocument reads the (already bounded) body of req and refuses it
// with 400 unless it is exactly one JSON value, optionally surrounded by
// white space: the validator and the generated binding both decode the
// first value and ignore whatever follows, so `{…}garbage` or `{…}{…}`
// would otherwise be accepted as the first document. The body is put back
// for them.
func oneJSONDocument(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiserve.Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body too large (limit %d bytes)", tooBig.Limit), Err: err}
		}
		return &apiserve.Error{Status: http.StatusBadRequest, Message: "reading the request body: " + err.Error(), Err: err}
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.ContentLength = int64(len(data))
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return nil // not JSON at all: the validator says why
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &apiserve.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("request body: unexpected data after the JSON document, which ends at byte %d; send exactly one JSON document", end)}
	}
	return nil
}
