package purl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// publisher is the principal the edge authorised for a write. The
// contract requires bearerAuth of every write, so its absence means the
// request did not come through the edge: it is refused.
func (s *Service) publisher(ctx context.Context) (auth.Principal, *failure) {
	p, err := auth.PrincipalFrom(ctx)
	if err != nil {
		return auth.Principal{}, s.fail(ctx, http.StatusUnauthorized, "unauthorized: publishing needs a bearer token with the role publisher (sitesvc tokens add --role publisher)")
	}
	if !p.CanPublish() {
		return auth.Principal{}, s.fail(ctx, http.StatusForbidden, fmt.Sprintf("forbidden: the token of %q has no role publisher or admin", p.Name))
	}
	return p, nil
}

// PutPublicXml implements purlapi.StrictServerInterface: publish an
// object's public XML.
func (s *Service) PutPublicXml(ctx context.Context, req purlapi.PutPublicXmlRequestObject) (purlapi.PutPublicXmlResponseObject, error) {
	res, created, fail := s.put(ctx, req.Id, store.PublicXML, req.Body)
	switch {
	case fail != nil:
		return respond(fail), nil
	case created:
		return purlapi.PutPublicXml201JSONResponse{Body: res, Headers: purlapi.PutPublicXml201ResponseHeaders{Location: &res.Purl}}, nil
	}
	return purlapi.PutPublicXml200JSONResponse{PublishedJSONResponse: purlapi.PublishedJSONResponse{Body: res, Headers: purlapi.PublishedResponseHeaders{Location: &res.Purl}}}, nil
}

// PutMods implements purlapi.StrictServerInterface: publish an object's
// MODS record.
func (s *Service) PutMods(ctx context.Context, req purlapi.PutModsRequestObject) (purlapi.PutModsResponseObject, error) {
	res, created, fail := s.put(ctx, req.Id, store.ModsXML, req.Body)
	switch {
	case fail != nil:
		return respond(fail), nil
	case created:
		return purlapi.PutMods201JSONResponse{Body: res, Headers: purlapi.PutMods201ResponseHeaders{Location: &res.Purl}}, nil
	}
	return purlapi.PutMods200JSONResponse{PublishedJSONResponse: purlapi.PublishedJSONResponse{Body: res, Headers: purlapi.PublishedResponseHeaders{Location: &res.Purl}}}, nil
}

// put validates and stores one record (name is store.PublicXML or
// store.ModsXML); created says whether there was none before.
func (s *Service) put(ctx context.Context, rawID, name string, bodyReader io.Reader) (purlapi.PublishResult, bool, *failure) {
	if _, fail := s.publisher(ctx); fail != nil {
		return purlapi.PublishResult{}, false, fail
	}
	id, err := druid.Parse(rawID)
	if err != nil {
		return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %q is not a druid", rawID))
	}
	if mt, _, err := mime.ParseMediaType(exchangeFrom(ctx).req.Header.Get("Content-Type")); err != nil || mt != "application/xml" {
		return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported media type: send the document as application/xml, not %q", exchangeFrom(ctx).req.Header.Get("Content-Type")))
	}
	if bodyReader == nil {
		bodyReader = strings.NewReader("")
	}
	body, err := io.ReadAll(io.LimitReader(bodyReader, record.MaxDocumentBytes+1))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusRequestEntityTooLarge, tooLarge)
		}
		return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusBadRequest, "bad request: reading the body: "+err.Error())
	}
	if len(body) > record.MaxDocumentBytes {
		return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusRequestEntityTooLarge, tooLarge)
	}
	// One write at a time: the checks below read the store, and the write
	// must not interleave with another that invalidates them.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	body, warnings, status, msg := s.validatePut(ctx, id, name, body)
	if status != 0 {
		return purlapi.PublishResult{}, false, s.fail(ctx, status, msg)
	}
	created, err := s.store.Write(ctx, id, name, bytes.NewReader(body))
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "purl: writing", "druid", id.Qualified(), "document", name, "err", err)
		return purlapi.PublishResult{}, false, s.fail(ctx, http.StatusInternalServerError, "internal error: the document could not be stored; the previous version is unchanged")
	}
	s.forget(id)
	s.cfg.Logger.InfoContext(ctx, "purl: published", "druid", id.Qualified(), "document", name, "created", created)
	res := purlapi.PublishResult{
		Id:       id.Qualified(),
		Document: purlapi.PublishResultDocument(name),
		Etag:     newRepresentation(body).etag,
		Purl:     s.purl(id),
	}
	if len(warnings) > 0 {
		res.Warnings = &warnings
		s.cfg.Logger.InfoContext(ctx, "purl: published with warnings", "druid", id.Qualified(), "document", name, "warnings", warnings)
	}
	return res, created, nil
}

// validatePut returns the document to store (the record in its served
// form) and the warnings for the publisher, or a status and reason when
// body may not be stored.
func (s *Service) validatePut(ctx context.Context, id druid.Druid, name string, body []byte) ([]byte, []string, int, string) {
	classify := func(err error) ([]byte, []string, int, string) {
		switch {
		case errors.Is(err, record.ErrMalformed):
			return nil, nil, http.StatusBadRequest, "bad request: " + err.Error()
		case errors.Is(err, record.ErrSchemaCheck):
			s.cfg.Logger.ErrorContext(ctx, "purl: MODS schema check", "druid", id.Qualified(), "err", err)
			return nil, nil, http.StatusInternalServerError, "internal error: the MODS record could not be checked against the MODS 3.6 schema; nothing was changed"
		}
		return nil, nil, http.StatusUnprocessableEntity, "unprocessable: " + err.Error()
	}
	if name == store.ModsXML {
		if _, err := s.store.Stat(ctx, id, store.PublicXML); err != nil {
			return nil, nil, http.StatusConflict, fmt.Sprintf("conflict: %s has no public XML yet; PUT /%s.xml first", id.Qualified(), id)
		}
		doc, warnings, err := record.PrepareMODS(ctx, body, s.cfg.MODSSchema)
		if err != nil {
			return classify(err)
		}
		return doc, warnings, 0, ""
	}
	// Files cannot be uploaded over HTTP: the record alone is published,
	// keeping the object's files; it may only name files the store already
	// holds (their sizes are served as they are there), so that it never
	// promises a file the service cannot serve.
	in, err := record.IngestWith(ctx, body, record.IngestOptions{
		Schema: s.cfg.MODSSchema,
		Now:    s.cfg.Now(),
		ID:     id,
		Files: func(name string) (int64, error) {
			info, err := s.store.Stat(ctx, id, name)
			if err != nil {
				return 0, fmt.Errorf("the store holds no such file for %s (publish files with sitesvc purl publish)", id.Qualified())
			}
			return info.Size(), nil
		},
	})
	if err != nil {
		return classify(err)
	}
	rec := in.Record
	if rec.Druid != id {
		return nil, nil, http.StatusUnprocessableEntity, fmt.Sprintf("unprocessable: objectId %q does not match the path %s", rec.Druid.Qualified(), id.Qualified())
	}
	return in.Data, in.Warnings, 0, ""
}

// DeleteObject implements purlapi.StrictServerInterface: withdraw an object.
func (s *Service) DeleteObject(ctx context.Context, req purlapi.DeleteObjectRequestObject) (purlapi.DeleteObjectResponseObject, error) {
	if _, fail := s.publisher(ctx); fail != nil {
		return respond(fail), nil
	}
	id, err := druid.Parse(req.Id)
	if err != nil {
		return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %q is not a druid", req.Id))), nil
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err = s.store.Delete(ctx, id)
	s.forget(id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: no object %s", id.Qualified()))), nil
	case err != nil:
		s.cfg.Logger.ErrorContext(ctx, "purl: deleting", "druid", id.Qualified(), "err", err)
		return respond(s.fail(ctx, http.StatusInternalServerError, "internal error: the object could not be deleted")), nil
	}
	s.dropImages(ctx, id) // iiif_image.go
	s.cfg.Logger.InfoContext(ctx, "purl: deleted", "druid", id.Qualified())
	return purlapi.DeleteObject204Response{}, nil
}
