package hours

// JSON:API Atomic Operations (https://jsonapi.org/ext/atomic) for the
// per-date exceptions of one library: POST /libraries/{library_id}/operations
// runs its operations in order in one store transaction (store.Atomic), so
// a batch — the staff editor's CSV import — is written whole or not at all,
// with no moment at which a reader sees part of it. docs/hours.md, "CSV".

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// extAtomic is the extension's URI; mediaAtomic the media type of its
// request and response documents.
const (
	extAtomic   = "https://jsonapi.org/ext/atomic"
	mediaAtomic = mediaJSONAPI + `; ext="` + extAtomic + `"`
)

// isOperations reports whether path is a library's operations endpoint
// (/libraries/{library_id}/operations), whose documents use the extension.
func isOperations(path string) bool {
	rest, ok := strings.CutPrefix(path, "/libraries/")
	if !ok {
		return false
	}
	lib, tail, ok := strings.Cut(rest, "/")
	return ok && lib != "" && tail == "operations"
}

// exceptionTarget is what an operation's href names: a location's
// exceptions (id 0) or one of them.
type exceptionTarget struct {
	library, location string
	id                int64
}

// parseHref reads an operation's href: relative to the API
// ("/libraries/green/locations/main/exceptions/12", ".json" allowed) or
// absolute under its base URL.
func (s *Service) parseHref(href string) (exceptionTarget, error) {
	p := strings.TrimPrefix(href, s.cfg.BaseURL)
	p, _, _ = strings.Cut(p, "?")
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "/"), ".json"), "/")
	if (len(parts) != 5 && len(parts) != 6) || parts[0] != "libraries" || parts[2] != "locations" || parts[4] != "exceptions" || parts[1] == "" || parts[3] == "" {
		return exceptionTarget{}, fmt.Errorf("href %q names no location's exceptions (/libraries/{library_id}/locations/{location_id}/exceptions[/{exception_id}])", href)
	}
	t := exceptionTarget{library: parts[1], location: parts[3]}
	if len(parts) == 6 {
		id, err := strconv.ParseInt(parts[5], 10, 64)
		if err != nil || id <= 0 {
			return exceptionTarget{}, fmt.Errorf("href %q: %q is not an exception id", href, parts[5])
		}
		t.id = id
	}
	return t, nil
}

// opError is a refusal of operation n, its pointer moved under
// /atomic:operations/n as the extension asks.
func opError(n int, err error) error {
	prefix := "/atomic:operations/" + strconv.Itoa(n)
	var ae *apiserve.Error
	if !errors.As(err, &ae) {
		return err
	}
	out := *ae
	out.Message = fmt.Sprintf("operation %d: %s", n, ae.Message)
	switch {
	case ae.Pointer != "":
		out.Pointer = prefix + ae.Pointer
	case ae.Status == http.StatusNotFound:
		out.Pointer = prefix + "/href"
	}
	return &out
}

// RunOperations is POST /libraries/{library_id}/operations.
func (s *Service) RunOperations(ctx context.Context, req hoursapi.RunOperationsRequestObject) (hoursapi.RunOperationsResponseObject, error) {
	who, err := s.authorize(ctx, req.LibraryId, false)
	if err != nil {
		return nil, err
	}
	ops := req.Body.AtomicOperations
	targets := make([]exceptionTarget, len(ops))
	for n, op := range ops {
		bad := func(pointer, format string, args ...any) error {
			return &apiserve.Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("operation %d: ", n) + fmt.Sprintf(format, args...), Pointer: "/atomic:operations/" + strconv.Itoa(n) + pointer}
		}
		t, err := s.parseHref(op.Href)
		if err != nil {
			return nil, bad("/href", "%v", err)
		}
		if t.library != req.LibraryId {
			return nil, &apiserve.Error{Status: http.StatusForbidden, Message: fmt.Sprintf("operation %d: href %q is outside library %q, whose operations these are", n, op.Href, req.LibraryId), Pointer: "/atomic:operations/" + strconv.Itoa(n) + "/href"}
		}
		switch op.Op {
		case hoursapi.AtomicOperationOpAdd:
			if t.id != 0 {
				return nil, bad("/href", "add names a location's exceptions, not one of them")
			}
			if op.Data == nil {
				return nil, bad("", "add needs data")
			}
			if op.Data.Id != nil {
				return nil, &apiserve.Error{Status: http.StatusForbidden, Message: fmt.Sprintf("operation %d: client-generated ids are not supported; leave data.id out", n), Pointer: "/atomic:operations/" + strconv.Itoa(n) + "/data/id"}
			}
		case hoursapi.AtomicOperationOpUpdate:
			if t.id == 0 {
				return nil, bad("/href", "update names one exception")
			}
			if op.Data == nil {
				return nil, bad("", "update needs data")
			}
			if op.Data.Id != nil && *op.Data.Id != strconv.FormatInt(t.id, 10) {
				return nil, &apiserve.Error{Status: http.StatusConflict, Message: fmt.Sprintf("operation %d: data.id %q is not the id in href (%d)", n, *op.Data.Id, t.id), Pointer: "/atomic:operations/" + strconv.Itoa(n) + "/data/id"}
			}
		case hoursapi.AtomicOperationOpRemove:
			if t.id == 0 {
				return nil, bad("/href", "remove names one exception")
			}
			if op.Data != nil {
				return nil, bad("/data", "remove takes no data")
			}
		}
		targets[n] = t
	}
	written := make([]int64, len(ops)) // the exception each operation wrote; 0 for a removal
	err = s.store.Atomic(ctx, func(tx *store.Store) error {
		for n, op := range ops {
			t := targets[n]
			var err error
			switch op.Op {
			case hoursapi.AtomicOperationOpAdd:
				written[n], err = tx.CreateException(ctx, who, t.library, t.location, exceptionInput(op.Data.Attributes))
			case hoursapi.AtomicOperationOpUpdate:
				written[n], err = t.id, tx.UpdateException(ctx, who, t.library, t.location, t.id, exceptionInput(op.Data.Attributes))
			case hoursapi.AtomicOperationOpRemove:
				err = tx.DeleteException(ctx, who, t.library, t.location, t.id)
			}
			if err != nil {
				return opError(n, storeError(err))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v, err := s.fresh(ctx)
	if err != nil {
		return nil, err
	}
	doc := hoursapi.AtomicResultsDocument{AtomicResults: make([]struct {
		Data *hoursapi.ExceptionResource `json:"data,omitempty"`
	}, len(ops))}
	doc.Jsonapi = hoursapi.JSONAPIObject{Version: hoursapi.N11, Ext: &[]hoursapi.JSONAPIObjectExt{hoursapi.HttpsjsonapiOrgextatomic}}
	byID := make(map[int64]store.Exception, len(v.snap.Exceptions))
	for _, e := range v.snap.Exceptions {
		byID[e.ID] = e
	}
	for n, id := range written {
		if id == 0 {
			continue
		}
		e, ok := byID[id]
		loc := v.locationByID(e.LocationID)
		if !ok || loc == nil {
			return nil, fmt.Errorf("hours: exception %d vanished after the operations", id)
		}
		res := toExceptionResource(loc, e)
		doc.AtomicResults[n].Data = &res
	}
	r, err := newRendered(doc, mediaAtomic)
	if err != nil {
		return nil, err
	}
	return &hoursapi.Respond{Representation: writeResponse{status: http.StatusOK, r: r}}, nil
}
