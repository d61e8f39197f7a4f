// Package embedcode is the one embed code the project hands out: the
// oEmbed html of the Embed service and the "Embed this" code of the PURL
// page are both made here, so they cannot disagree (docs/embed.md, "The
// embed code").
package embedcode

import (
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/embed/objectview"
)

// DefaultHeightPx is the viewer height without maxheight: 500px = 31.25rem.
const DefaultHeightPx = 500

// remPx is the CSS pixels per rem the sizes are expressed with.
const remPx = 16

// Rem writes px as a CSS rem length ("31.25rem").
func Rem(px int32) string {
	return strconv.FormatFloat(float64(px)/remPx, 'f', -1, 64) + "rem"
}

// Params are the oEmbed parameters that change the code (0: not given).
type Params struct {
	MaxHeight, MaxWidth int32
	HideTitle           bool
}

// Heights of the parts of the media viewer (CSS pixels, as viewer.css lays
// them out in Chromium), from which a sound recording's frame height
// follows: the bar, the padding of a figure, a player, its caption, the
// gap under a cover image.
const (
	barPx          = 33 // the 2rem bar and its border
	figurePadPx    = 16 // .sitesvc-media padding, top and bottom
	audioPlayerPx  = 54 // Chromium's <audio controls> (Firefox's is 40)
	captionPx      = 26 // figcaption, .9rem with its margin
	coverGapPx     = 8  // under the cover image
	maxCoverEdgePx = 360
)

// FrameHeightPx is the height the object's viewer wants, before
// maxheight: the default (500 px) for images, video, PDFs, lists and
// notices, and for sound recordings their players and captions with the
// cover image at its own size (at most maxCoverEdgePx): the frame is sized
// to the player, not a strip of player in an empty box.
func FrameHeightPx(obj *objectview.Object) int32 {
	if obj.Access.Restricted() || obj.Viewer() != objectview.ViewerMedia {
		return DefaultHeightPx
	}
	var audio int32
	var cover *objectview.File
	for _, f := range obj.Files() {
		switch {
		case strings.HasPrefix(f.MimeType, "video/"):
			return DefaultHeightPx
		case strings.HasPrefix(f.MimeType, "audio/"):
			audio++
		case strings.HasPrefix(f.MimeType, "image/") && cover == nil:
			cover = &f
		}
	}
	h := barPx + audio*(figurePadPx+audioPlayerPx+captionPx)
	if cover != nil && cover.Width > 0 && cover.Height > 0 {
		h += int32(min(cover.Height, maxCoverEdgePx)) + coverGapPx
	}
	return min(h, DefaultHeightPx)
}

// HeightPx is the frame's height with maxheight honoured: the oEmbed
// height.
func HeightPx(obj *objectview.Object, p Params) int32 {
	h := FrameHeightPx(obj)
	if p.MaxHeight > 0 {
		h = min(h, p.MaxHeight)
	}
	return h
}

// IframeSrc is the /iframe URL of the object at purl (its canonical
// PURL). hide_title=false is the default and is left out.
func IframeSrc(embedBase, purl string, hideTitle bool) string {
	src := embedBase + "/iframe?url=" + url.QueryEscape(purl)
	if hideTitle {
		src += "&hide_title=true"
	}
	return src
}

// HTML is the embed code of obj, whose canonical PURL is purl: the seed's
// iframe, whose height and width of 100% fill a box the embedding page
// sizes, plus a min-height of the oEmbed height, so that pasted into an
// ordinary page (where 100% of an unsized box is nothing and an iframe
// falls back to 150 px) it keeps a usable size; max-height and max-width
// from maxheight and maxwidth. Every attribute value is HTML-escaped.
func HTML(embedBase, purl string, obj *objectview.Object, p Params) string {
	style := "height: 100%; width: 100%; min-height: " + Rem(HeightPx(obj, p)) + ";"
	if p.MaxHeight > 0 {
		style += " max-height: " + Rem(p.MaxHeight) + ";"
	}
	if p.MaxWidth > 0 {
		style += " max-width: " + Rem(p.MaxWidth) + ";"
	}
	return fmt.Sprintf(`<iframe src="%s" style="%s" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" allowfullscreen title="%s"></iframe>`,
		html.EscapeString(IframeSrc(embedBase, purl, p.HideTitle)), style, html.EscapeString("Viewer: "+obj.Title))
}
