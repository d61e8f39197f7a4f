package hours

// Requests as JSON:API 1.1 allows them (issue 15.2): before the contract's
// validator sees a request, its query string is checked (unsupported
// include/sort/page/fields/filter and unknown all-lower-case parameters are
// 400) and its request document normalised (members JSON:API allows that
// the contract leaves out are dropped; read-only attributes and
// relationships sent back unchanged are dropped, a change to one is 403).
// Which attributes and relationships are writable comes from the
// operation's request schema in api/hours.yaml; their stored values from
// the resource as a GET renders it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/hours/jsonapireq"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// alwaysIncluded are the relationship paths each read includes anyway, by
// operation id in lower case (the loaded contract's ids are capitalised).
var alwaysIncluded = map[string][]string{
	"listlibraries": {"locations", "primary_location"},
	"getlibrary":    {"locations", "primary_location"},
	"getlocation":   {"library"},
}

// computedAttributes are read-only attributes computed per request.
var computedAttributes = map[string]jsonapireq.Kind{"hours": jsonapireq.Array}

// jsonapiRequests is the echo pre-middleware applying both checks to the
// operations of the JSON:API (not the legacy API, the pages, the feeds or
// the published contract).
func (s *Service) jsonapiRequests(ops *operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Method == http.MethodOptions || isLegacy(req.URL.Path) || isSpec(req.URL.Path) {
				return next(c)
			}
			op, found := ops.contract.Operation(req)
			if !found || op == nil {
				return next(c) // 404/405 follow
			}
			query, jsonapi := ops.queries[op.OperationID]
			if !jsonapi {
				return next(c)
			}
			// A request without a query has no parameter to check (and
			// parsing one would cost every read a map).
			if req.URL.RawQuery != "" {
				if err := jsonapireq.CheckQuery(req.URL.Query(), query); err != nil {
					return asAPIError(err)
				}
			}
			if op.RequestBody == nil || req.Body == nil {
				return next(c)
			}
			route, params, err := ops.contract.FindRoute(req)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(io.LimitReader(req.Body, jsonapireq.MaxDocumentBytes+1))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					// apiserve answers 413 naming the server's limit.
					return fmt.Errorf("reading the request document: %w", err)
				}
				return &apiserve.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("reading the request document: %v", err), Err: err}
			}
			req.Body.Close()
			// Before anything decodes it: JSON decoders turn invalid UTF-8 into U+FFFD.
			if err := jsonapireq.CheckUTF8(body); err != nil {
				return asAPIError(err)
			}
			res, found, err := s.storedResource(req.Context(), route, params)
			if err != nil {
				return err
			}
			if found {
				if body, err = jsonapireq.Normalize(body, res); err != nil {
					return asAPIError(err)
				}
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			return next(c)
		}
	}
}

func asAPIError(err error) error {
	var je *jsonapireq.Error
	if errors.As(err, &je) {
		return &apiserve.Error{Status: je.Status, Message: je.Message, Pointer: je.Pointer, Parameter: je.Parameter, Err: err}
	}
	return err
}

// queryParams are the operation's declared query parameters.
func queryParams(op *openapi3.Operation) []string {
	var out []string
	for _, p := range op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			out = append(out, p.Value.Name)
		}
	}
	return out
}

// writable are the attribute and relationship names an operation's request
// document may set.
func writable(op *openapi3.Operation) (attrs, rels []string) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, nil
	}
	mt := op.RequestBody.Value.Content.Get(mediaJSONAPI)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, nil
	}
	data := mt.Schema.Value.Properties["data"]
	if data == nil || data.Value == nil {
		return nil, nil
	}
	if a := data.Value.Properties["attributes"]; a != nil && a.Value != nil {
		for name := range a.Value.Properties {
			attrs = append(attrs, name)
		}
	}
	if r := data.Value.Properties["relationships"]; r != nil && r.Value != nil {
		for name := range r.Value.Properties {
			rels = append(rels, name)
		}
	}
	return attrs, rels
}

// storedResource is what a write's document is checked against: on update
// the stored resource as a GET renders it, on create the relationships the
// URL implies. found is false when the resource does not exist (the
// handler answers 404) or the operation is not a known write.
func (s *Service) storedResource(ctx context.Context, route *routers.Route, params map[string]string) (jsonapireq.Resource, bool, error) {
	v, err := s.cache.current(ctx)
	if err != nil {
		return jsonapireq.Resource{}, false, err
	}
	lib := v.bySlug[params["library_id"]]
	if lib == nil {
		return jsonapireq.Resource{}, false, nil
	}
	var loc *locationView
	if slug, ok := params["location_id"]; ok {
		if loc = lib.bySlug[slug]; loc == nil {
			return jsonapireq.Resource{}, false, nil
		}
	}
	week := schedule.Week(schedule.Today(s.cfg.Now(), lib.zone))
	var rendered any
	// The *Json operations (writes at links.self) are their counterparts'.
	switch strings.TrimSuffix(strings.ToLower(route.Operation.OperationID), "json") {
	case "updatelibrary":
		rendered = s.rend.toLibraryResource(lib, week, nil)
	case "updatelocation":
		rendered = s.rend.toLocationResource(loc, week)
	case "updateterm":
		rendered = storedItem(params, "term_id", v.snap.Terms, termIDs, lib.lib.ID, func(t store.Term) any { return toTermResource(lib, t) })
	case "updateschedule":
		rendered = storedItem(params, "schedule_id", v.snap.Schedules, scheduleIDs, loc.loc.ID, func(sc store.Schedule) any { return toScheduleResource(loc, sc) })
	case "updateexception":
		rendered = storedItem(params, "exception_id", v.snap.Exceptions, exceptionIDs, loc.loc.ID, func(e store.Exception) any { return toExceptionResource(loc, e) })
	case "createlocation", "createterm":
		rendered = map[string]any{"relationships": map[string]any{"library": map[string]any{"data": hoursapi.LibraryIdentifier{Type: hoursapi.LibraryIdentifierTypeLibraries, Id: lib.lib.Slug}}}}
	case "createschedule", "createexception":
		rendered = map[string]any{"relationships": map[string]any{"location": map[string]any{"data": toLocationIdentifier(loc)}}}
	case "createlibrary":
		rendered = map[string]any{}
	}
	if rendered == nil {
		return jsonapireq.Resource{}, false, nil
	}
	return resourceOf(rendered, route.Operation)
}

// storedItem renders the item of owner that a write's URL names in its
// path parameter param (itemOf's rule); nil, which storedResource answers
// with 404, when the parameter is not an id or names no such item.
func storedItem[T any](params map[string]string, param string, items []T, ids func(T) (int64, int64), owner int64, render func(T) any) any {
	id, err := parseID(param, params[param])
	if err != nil {
		return nil
	}
	if it, ok := itemOf(items, ids, id, owner); ok {
		return render(it)
	}
	return nil
}

// resourceOf turns a rendered resource into the normaliser's view of it:
// attributes the write schema does not declare are read-only, relationships
// it does not declare are read-only.
func resourceOf(rendered any, op *openapi3.Operation) (jsonapireq.Resource, bool, error) {
	b, err := json.Marshal(rendered)
	if err != nil {
		return jsonapireq.Resource{}, false, fmt.Errorf("hours: encoding the stored resource: %w", err)
	}
	var doc struct {
		Type          string                    `json:"type"`
		Attributes    map[string]any            `json:"attributes"`
		Relationships map[string]map[string]any `json:"relationships"`
		Links         any                       `json:"links"`
		Meta          any                       `json:"meta"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return jsonapireq.Resource{}, false, fmt.Errorf("hours: decoding the stored resource: %w", err)
	}
	attrs, rels := writable(op)
	res := jsonapireq.Resource{Type: doc.Type, ReadOnly: map[string]any{}, Computed: map[string]jsonapireq.Kind{}, Relationships: map[string]any{}, WritableRelationships: rels}
	for name, v := range doc.Attributes {
		if slices.Contains(attrs, name) {
			continue
		}
		if k, ok := computedAttributes[name]; ok {
			res.Computed[name] = k
			continue
		}
		res.ReadOnly[name] = v
	}
	for name := range computedAttributes {
		if !slices.Contains(attrs, name) {
			res.Computed[name] = computedAttributes[name]
		}
	}
	// Some clients (jsona) serialise a resource's links and meta, as they
	// deserialised them, into its attributes. JSON:API reserves "links"
	// as a field name and this API has no "meta" attribute, so these are
	// read-only copies of the resource's own members: the same values
	// are ignored, others refused.
	if doc.Links != nil && !slices.Contains(attrs, "links") {
		res.ReadOnly["links"] = doc.Links
	}
	if doc.Meta != nil && !slices.Contains(attrs, "meta") {
		res.ReadOnly["meta"] = doc.Meta
	}
	for name, rel := range doc.Relationships {
		res.Relationships[name] = rel["data"]
	}
	return res, true, nil
}
