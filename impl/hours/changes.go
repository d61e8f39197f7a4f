package hours

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// maxChanges bounds a listChanges answer: the newest entries.
const maxChanges = 500

// changesResponse is a listChanges answer: private (it names who wrote),
// never stored by a cache, unlike every other read.
type changesResponse struct{ doc hoursapi.ChangesDocument }

func (c changesResponse) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	body, err := json.Marshal(c.doc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", mediaJSONAPI)
	w.Header().Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}

// ListChanges is GET /libraries/{library_id}/changes.json: the audit log's
// entries about the library (issue 19.3, the editor's "Changes"), to its
// editors and admins: the edge resolves the token or session (401) but
// scopes only writes, so the library is checked here (403).
func (s *Service) ListChanges(ctx context.Context, req hoursapi.ListChangesRequestObject) (hoursapi.ListChangesResponseObject, error) {
	if _, err := s.authorize(ctx, req.LibraryId, false); err != nil {
		return nil, err
	}
	v, err := s.cache.current(ctx)
	if err != nil {
		return nil, err
	}
	lib := v.bySlug[req.LibraryId]
	if lib == nil {
		return nil, libraryNotFound(req.LibraryId)
	}
	entries, err := s.store.Audit(ctx)
	if err != nil {
		return nil, err
	}
	doc := hoursapi.ChangesDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: s.cfg.BaseURL + "/libraries/" + lib.lib.Slug + "/changes.json"}, Data: []hoursapi.ChangeResource{}}
	for i := len(entries) - 1; i >= 0 && len(doc.Data) < maxChanges; i-- {
		e := entries[i]
		if v.bySlug[auditLibrary(e)] != lib {
			continue
		}
		var r hoursapi.ChangeResource
		r.Type, r.Id = hoursapi.Changes, strconv.FormatInt(e.ID, 10)
		a := &r.Attributes
		a.At, a.Who, a.Action, a.ResourceType, a.ResourceId = e.At, e.Who, hoursapi.ChangeResourceAttributesAction(e.Action), e.ResourceType, e.ResourceID
		if e.Detail != "" && e.Detail != "null" {
			var detail any
			if json.Unmarshal([]byte(e.Detail), &detail) == nil {
				a.Detail = detail
			}
		}
		doc.Data = append(doc.Data, r)
	}
	return &hoursapi.Respond{Representation: changesResponse{doc}}, nil
}

// auditLibrary is the slug (at the time of the write) of the library an
// audit entry is about: a library's own id, the first part of a location's
// "<library>/<location>", or the library or location its detail names.
func auditLibrary(e store.AuditEntry) string {
	switch e.ResourceType {
	case "libraries":
		return e.ResourceID
	case "locations":
		lib, _, _ := strings.Cut(e.ResourceID, "/")
		return lib
	}
	var detail struct {
		Library  string `json:"library"`
		Location string `json:"location"`
	}
	if json.Unmarshal([]byte(e.Detail), &detail) != nil {
		return ""
	}
	if detail.Library != "" {
		return detail.Library
	}
	lib, _, _ := strings.Cut(detail.Location, "/")
	return lib
}
