package embed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
)

// addThumbnail gives the oEmbed answer of an image object readable by
// anyone the thumbnail fields: the ThumbnailEdge size of its thumbnail
// image from the PURL service's IIIF Image API service (never the file
// itself, which may be a 75 MB JPEG 2000). iiifimage.ThumbnailRequest says
// which request that is without asking the PURL service. A restricted
// object gets none: its thumbnail would answer 401 or 403.
func (s *Service) addThumbnail(o *embedapi.OEmbed, obj *objectview.Object) {
	if obj.Thumb == "" || obj.Access.Level != objectview.World || obj.Viewer() != objectview.ViewerMirador {
		return
	}
	for _, f := range obj.Files() {
		if f.Name != obj.Thumb || !iiifimage.Tileable(f.MimeType) || f.Width <= 0 || f.Height <= 0 {
			continue
		}
		path, w, h := iiifimage.ThumbnailRequest(f.Width, f.Height)
		u := s.purl.ObjectURL(obj.Druid) + "/iiif/image/" + url.PathEscape(f.Name) + "/" + path
		o.ThumbnailUrl, o.ThumbnailWidth, o.ThumbnailHeight = &u, &w, &h
		return
	}
}

// thumbnailJSON appends the thumbnail fields (after html) when present.
func thumbnailJSON(buf *bytes.Buffer, o embedapi.OEmbed) error {
	if o.ThumbnailUrl == nil || o.ThumbnailWidth == nil || o.ThumbnailHeight == nil {
		return nil
	}
	u, err := json.Marshal(*o.ThumbnailUrl)
	if err != nil {
		return fmt.Errorf("encoding oEmbed JSON field thumbnail_url: %w", err)
	}
	fmt.Fprintf(buf, `,"thumbnail_url":%s,"thumbnail_width":%d,"thumbnail_height":%d`, u, *o.ThumbnailWidth, *o.ThumbnailHeight)
	return nil
}

// thumbnailXML appends the thumbnail elements when present.
func thumbnailXML(buf *bytes.Buffer, o embedapi.OEmbed) {
	if o.ThumbnailUrl == nil || o.ThumbnailWidth == nil || o.ThumbnailHeight == nil {
		return
	}
	buf.WriteString("<thumbnail_url>")
	_ = xml.EscapeText(buf, []byte(*o.ThumbnailUrl)) // a bytes.Buffer does not fail
	buf.WriteString("</thumbnail_url><thumbnail_width>" + strconv.Itoa(*o.ThumbnailWidth) + "</thumbnail_width><thumbnail_height>" + strconv.Itoa(*o.ThumbnailHeight) + "</thumbnail_height>")
}
