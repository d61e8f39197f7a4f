package purl

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// GetZip implements purlapi.StrictServerInterface: every file of the
// object in one zip, for readers who may download them.
func (s *Service) GetZip(ctx context.Context, req purlapi.GetZipRequestObject) (purlapi.GetZipResponseObject, error) {
	obj, fail := s.readObject(ctx, req.Id)
	if fail != nil {
		return respond(fail), nil
	}
	rec := obj.rec
	if len(rec.Files()) == 0 {
		return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no files", rec.Druid.Qualified()))), nil
	}
	ex := exchangeFrom(ctx)
	if status, msg := s.fileAccess(ex.req, rec); status != 0 {
		fail := s.fail(ctx, status, msg)
		fail.vary = "Authorization"
		return respond(fail), nil
	}
	return respond(zipResponse{s: s, ctx: ctx, req: ex.req, obj: obj, rec: rec, world: rec.Rights.WorldReadable(s.cfg.Now())}), nil
}

// zipResponse streams the archive: each file is copied from the store
// into the response as it is read, so memory use does not grow with the
// object.
type zipResponse struct {
	s     *Service
	ctx   context.Context
	req   *http.Request
	obj   *object // its files come from its own store version (pin.go)
	rec   *record.Record
	world bool
}

func (z zipResponse) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": string(z.rec.Druid) + ".zip"}))
	h.Set("X-Content-Type-Options", "nosniff")
	h["Cache-Control"] = z.s.cacheControl(z.world)
	if !z.world {
		h.Set("Vary", "Authorization")
	}
	w.WriteHeader(http.StatusOK)
	if z.req.Method == http.MethodHead {
		return nil
	}
	if err := z.write(w); err != nil {
		// The status is sent: the client sees a truncated archive, which
		// every unzip tool reports.
		z.s.cfg.Logger.ErrorContext(z.ctx, "purl: writing the zip", "druid", z.rec.Druid.Qualified(), "err", err)
	}
	return nil
}

func (z zipResponse) write(w io.Writer) error {
	zw := zip.NewWriter(w)
	for _, f := range z.rec.Files() {
		if err := z.add(zw, f); err != nil {
			return err
		}
	}
	return zw.Close()
}

func (z zipResponse) add(zw *zip.Writer, f record.File) error {
	blob, err := z.s.openFile(z.ctx, z.obj, f.Name) // the version the record was read from
	if err != nil {
		return fmt.Errorf("opening %s: %w", f.Name, err)
	}
	defer blob.File.Close()
	hdr := &zip.FileHeader{Name: f.Name, Method: zip.Store, Modified: blob.Info.ModTime().UTC()}
	out, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("zip entry %s: %w", f.Name, err)
	}
	if _, err := io.Copy(out, blob.File); err != nil {
		return fmt.Errorf("copying %s: %w", f.Name, err)
	}
	return nil
}
