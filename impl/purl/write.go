package purl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// authorizeWrite checks the bearer token of a write: 0 when it may, else
// the status and reason.
func (s *Service) authorizeWrite(r *http.Request) (int, string) {
	token, ok := auth.BearerToken(r)
	if !ok {
		return http.StatusUnauthorized, "unauthorized: publishing needs a bearer token with the role publisher (sitesvc tokens add --role publisher)"
	}
	if s.cfg.Tokens == nil {
		return http.StatusUnauthorized, "unauthorized: this service accepts no tokens"
	}
	p, ok := s.cfg.Tokens.Authenticate(token)
	if !ok {
		return http.StatusUnauthorized, "unauthorized: unknown bearer token"
	}
	if !p.CanPublish() {
		return http.StatusForbidden, fmt.Sprintf("forbidden: the token of %q has no role publisher or admin", p.Name)
	}
	return 0, ""
}

func (s *Service) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="purl"`)
	}
	s.fail(w, r, status, msg)
}

// put publishes a public XML record (kind "xml") or a MODS record ("mods").
func (s *Service) put(w http.ResponseWriter, r *http.Request, id druid.Druid, kind string) {
	if status, msg := s.authorizeWrite(r); status != 0 {
		s.refuse(w, r, status, msg)
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/xml" && mt != "text/xml") {
		s.fail(w, r, http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported media type: send the document as application/xml, not %q", r.Header.Get("Content-Type")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, record.MaxDocumentBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("too large: documents are at most %d bytes", record.MaxDocumentBytes))
			return
		}
		s.fail(w, r, http.StatusBadRequest, "bad request: reading the body: "+err.Error())
		return
	}
	name := store.PublicXML
	if kind == "mods" {
		name = store.ModsXML
	}
	// One write at a time: the checks below read the store, and the write
	// must not interleave with another that invalidates them.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if status, msg := s.validatePut(r, id, kind, body); status != 0 {
		s.fail(w, r, status, msg)
		return
	}
	created, err := s.store.Write(r.Context(), id, name, bytes.NewReader(body))
	if err != nil {
		s.cfg.Logger.Error("purl: writing", "druid", id.Qualified(), "document", name, "err", err)
		s.fail(w, r, http.StatusInternalServerError, "internal error: the document could not be stored; the previous version is unchanged")
		return
	}
	s.forget(id)
	s.cfg.Logger.Info("purl: published", "druid", id.Qualified(), "document", name, "created", created)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	res := purlapi.PublishResult{
		Id:       id.Qualified(),
		Document: purlapi.PublishResultDocument(name),
		Etag:     newRepresentation(body).etag,
		Purl:     s.purl(id),
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", s.purl(id))
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(res)
}

// validatePut returns 0 when body may be stored, else status and reason.
func (s *Service) validatePut(r *http.Request, id druid.Druid, kind string, body []byte) (int, string) {
	classify := func(err error) (int, string) {
		if errors.Is(err, record.ErrMalformed) {
			return http.StatusBadRequest, "bad request: " + err.Error()
		}
		return http.StatusUnprocessableEntity, "unprocessable: " + err.Error()
	}
	if kind == "mods" {
		if _, err := s.store.Stat(r.Context(), id, store.PublicXML); err != nil {
			return http.StatusConflict, fmt.Sprintf("conflict: %s has no public XML yet; PUT /%s.xml first", id.Qualified(), id)
		}
		if _, err := record.ParseMODS(body); err != nil {
			return classify(err)
		}
		return 0, ""
	}
	rec, err := record.Parse(body)
	if err != nil {
		return classify(err)
	}
	if rec.Druid != id {
		return http.StatusUnprocessableEntity, fmt.Sprintf("unprocessable: objectId %q does not match the path %s", rec.Druid.Qualified(), id.Qualified())
	}
	// Files cannot be uploaded over HTTP; a record may only list files the
	// store already holds, with their real size, so that it never promises
	// a file the service cannot serve.
	for _, f := range rec.Files() {
		info, err := s.store.Stat(r.Context(), id, f.Name)
		if err != nil {
			return http.StatusUnprocessableEntity, fmt.Sprintf("unprocessable: file %q is not in the store for %s (publish files with sitesvc purl publish)", f.Name, id.Qualified())
		}
		if info.Size() != f.Size {
			return http.StatusUnprocessableEntity, fmt.Sprintf("unprocessable: file %q is %d bytes in the store, the record says %d", f.Name, info.Size(), f.Size)
		}
	}
	return 0, ""
}

func (s *Service) delete(w http.ResponseWriter, r *http.Request, id druid.Druid) {
	if status, msg := s.authorizeWrite(r); status != 0 {
		s.refuse(w, r, status, msg)
		return
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err := s.store.Delete(r.Context(), id)
	s.forget(id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("not found: no object %s", id.Qualified()))
	case err != nil:
		s.cfg.Logger.Error("purl: deleting", "druid", id.Qualified(), "err", err)
		s.fail(w, r, http.StatusInternalServerError, "internal error: the object could not be deleted")
	default:
		s.cfg.Logger.Info("purl: deleted", "druid", id.Qualified())
		w.WriteHeader(http.StatusNoContent)
	}
}
