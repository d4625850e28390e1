// Package pdfread reads back what ticketpdf.Render drew, for the tests of the printed
// tickets: the page count, and each page's QR code decoded from the squares drawn on it
// (rebuilt into an image and read with ZXing's QR reader, as a scanner at the door would).
package pdfread

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

var (
	pageObj   = regexp.MustCompile(`/Type\s*/Page[^s]`)
	streamRe  = regexp.MustCompile(`<<([^>]*)>>\s*stream\r?\n`)
	lengthRe  = regexp.MustCompile(`/Length (\d+)\b`)
	rectFill  = regexp.MustCompile(`(-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+) re f`)
	modulePx  = 4
	quietMods = 4
)

// Pages counts the page objects of pdf.
func Pages(pdf []byte) int { return len(pageObj.FindAll(pdf, -1)) }

// QRCodes returns the text of the QR code of each page that draws one, in page order.
// A stream is read by its dictionary's /Length, never by searching for "endstream":
// compressed bytes may end in a carriage return, which a search would take for the
// line break before the keyword.
// Errors: a stream without a direct /Length or running past the file, a compressed
// stream that does not inflate, a page whose squares do not decode.
func QRCodes(pdf []byte) ([]string, error) {
	var out []string
	for at := 0; ; {
		m := streamRe.FindSubmatchIndex(pdf[at:])
		if m == nil {
			return out, nil
		}
		for i := range m {
			m[i] += at
		}
		dict := pdf[m[2]:m[3]]
		l := lengthRe.FindSubmatch(dict)
		if l == nil {
			return out, fmt.Errorf("pdfread: a stream at byte %d has no direct /Length", m[0])
		}
		n, _ := strconv.Atoi(string(l[1]))
		if m[1]+n > len(pdf) {
			return out, fmt.Errorf("pdfread: a stream at byte %d runs past the file", m[0])
		}
		content := pdf[m[1] : m[1]+n]
		// the next search starts after this stream's bytes
		at = m[1] + n
		if bytes.Contains(dict, []byte("/Length1")) { // an embedded font file
			continue
		}
		if bytes.Contains(dict, []byte("/FlateDecode")) {
			r, err := zlib.NewReader(bytes.NewReader(content))
			if err != nil {
				return out, fmt.Errorf("pdfread: a stream at byte %d: %w", m[0], err)
			}
			if content, err = io.ReadAll(r); err != nil {
				return out, fmt.Errorf("pdfread: a stream at byte %d: %w", m[0], err)
			}
		}
		rects := rectFill.FindAllSubmatch(content, -1)
		if len(rects) == 0 {
			continue
		}
		text, err := decode(rects)
		if err != nil {
			return out, err
		}
		out = append(out, text)
	}
}

// decode rebuilds the module grid of filled squares (x y w -h in points) and reads it
// as a pure code (the grid is exact: no finder pattern search, which missed a few codes
// in a thousand; TestDecode_EveryTicketReference).
func decode(rects [][][]byte) (string, error) {
	type sq struct{ x, y, w float64 }
	var sqs []sq
	minX, maxY, w := math.Inf(1), math.Inf(-1), 0.0
	for _, r := range rects {
		x, _ := strconv.ParseFloat(string(r[1]), 64)
		y, _ := strconv.ParseFloat(string(r[2]), 64)
		w, _ = strconv.ParseFloat(string(r[3]), 64)
		sqs = append(sqs, sq{x, y, w})
		minX, maxY = math.Min(minX, x), math.Max(maxY, y)
	}
	if w <= 0 {
		return "", errors.New("pdfread: squares without a width")
	}
	n := 0
	cells := make([][2]int, len(sqs))
	for i, s := range sqs {
		c, r := int(math.Round((s.x-minX)/w)), int(math.Round((maxY-s.y)/w))
		cells[i] = [2]int{c, r}
		n = max(n, c+1, r+1)
	}
	side := (n + 2*quietMods) * modulePx
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, cr := range cells {
		for dy := 0; dy < modulePx; dy++ {
			for dx := 0; dx < modulePx; dx++ {
				img.SetGray((cr[0]+quietMods)*modulePx+dx, (cr[1]+quietMods)*modulePx+dy, color.Gray{})
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", err
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}
