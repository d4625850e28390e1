// Package ticketpdf prints a paid order's tickets as a PDF (GET /orders/{no}/ticket.pdf):
// one page per seat with the order's QR code (its signed ticket reference, drawn as
// vector squares so it prints sharp), the door code, the ticket type and the seat, and
// for a counter sale a receipt page with the tender. It imports only the root services
// package (view models are plain text), like views.
package ticketpdf

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"codeberg.org/go-pdf/fpdf"
	qrcode "github.com/skip2/go-qrcode"
)

// Seat is one ticket: the seat's label, its zone's and ticket type's names, and its price as shown.
type Seat struct {
	Label      string
	Zone       string
	TicketType string
	Price      string
}

// Receipt is a counter sale's receipt: the money as shown (the cinema's currency) and
// how it was paid.
type Receipt struct {
	Total    string
	Discount string // "" without a voucher
	Voucher  string
	Tender   string // cash, card
	Tendered string // cash only
	Change   string // cash only
	PaidAt   string // local time with its zone
	SoldBy   string
}

// Doc is what the PDF prints, in Lang (en, zh): texts already in the cinema's zone and
// currency. Ref is the ticket reference the QR code encodes; Code the door code.
type Doc struct {
	Lang     string
	Movie    string
	Cinema   string
	Hall     string
	Starts   string
	OrderNo  string
	Ref      string
	Code     string
	Seats    []Seat
	Receipt  *Receipt
	Fonts    Fonts
	Producer string
}

// Fonts are the TrueType files the PDF embeds: Text for Latin text (DejaVu Sans; ""
// falls back to the core Helvetica, Latin-1 only) and CJK for Chinese (a .ttf with CJK
// glyphs such as Droid Sans Fallback; "" prints the English texts instead, and names
// with Chinese characters as they can be shown).
type Fonts struct {
	Text string
	CJK  string
}

// FindFonts returns the first existing file of each list: SEATFLOW_PDF_FONT and
// SEATFLOW_PDF_CJK_FONT first, then the Debian paths of DejaVu Sans and Droid Sans
// Fallback (package fonts-droid-fallback).
func FindFonts() Fonts {
	first := func(paths ...string) string {
		for _, p := range paths {
			if p == "" {
				continue
			}
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
		return ""
	}
	return Fonts{
		Text: first(os.Getenv("SEATFLOW_PDF_FONT"), "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
		CJK: first(os.Getenv("SEATFLOW_PDF_CJK_FONT"), "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
			"/usr/share/fonts/truetype/droid/DroidSansFallback.ttf"),
	}
}

// texts are the PDF's labels by language.
var texts = map[string]map[string]string{
	"en": {"ticket": "Ticket", "seat": "Seat", "zone": "Zone", "type": "Ticket type", "price": "Price", "code": "Door code",
		"order": "Order", "receipt": "Receipt", "total": "Total", "discount": "Discount", "tender": "Paid by",
		"cash": "Cash", "card": "Card", "given": "Cash given", "change": "Change", "paid": "Paid", "seller": "Sold by",
		"of": "of", "show": "Show this page at the door"},
	"zh": {"ticket": "电影票", "seat": "座位", "zone": "区域", "type": "票种", "price": "票价", "code": "入场码",
		"order": "订单", "receipt": "收据", "total": "合计", "discount": "优惠", "tender": "支付方式",
		"cash": "现金", "card": "银行卡", "given": "实收现金", "change": "找零", "paid": "付款时间", "seller": "售票员",
		"of": "/", "show": "入场时请出示本页"},
}

// QRModuleMM is the width of one QR module on paper (millimetres).
const QRModuleMM = 1.6

// Render writes d as a PDF to w: a page per seat, then the receipt page when d has one.
// Chinese labels need d.Fonts.CJK; without it the labels are English. Errors: the QR
// encoder's (a reference too long), a font that cannot be read, w's.
func Render(w io.Writer, d Doc) error {
	lang := d.Lang
	if lang != "zh" || d.Fonts.CJK == "" {
		lang = "en"
	}
	t := texts[lang]
	qr, err := qrcode.New(d.Ref, qrcode.Medium)
	if err != nil {
		return err
	}
	qr.DisableBorder = true
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetCreator("seatflow", true)
	pdf.SetTitle(t["ticket"]+" "+d.OrderNo, true)
	pdf.SetAutoPageBreak(false, 0)
	f := newFonts(pdf, d.Fonts)
	if err := pdf.Error(); err != nil {
		return err
	}
	for i, s := range d.Seats {
		pdf.AddPage()
		pageW, _ := pdf.GetPageSize()
		f.set(d.Movie, 18)
		pdf.SetXY(12, 14)
		pdf.MultiCell(pageW-24, 8, f.show(d.Movie), "", "L", false)
		f.set(d.Cinema, 11)
		for _, line := range []string{d.Cinema, d.Hall, d.Starts} {
			if line == "" {
				continue
			}
			f.set(line, 11)
			pdf.SetX(12)
			pdf.CellFormat(pageW-24, 6, f.show(line), "", 1, "L", false, 0, "")
		}
		pdf.Ln(3)
		rows := [][2]string{{t["seat"], s.Label}, {t["zone"], s.Zone}, {t["type"], s.TicketType}, {t["price"], s.Price}}
		for _, r := range rows {
			pdf.SetX(12)
			f.set(r[0], 11)
			pdf.CellFormat(32, 7, f.show(r[0]), "", 0, "L", false, 0, "")
			f.set(r[1], 13)
			pdf.CellFormat(pageW-56, 7, f.show(r[1]), "", 1, "L", false, 0, "")
		}
		// the QR code: one filled square per dark module (with a quiet zone of 4 modules
		// left white around it), centred
		bits := qr.Bitmap()
		size := float64(len(bits)) * QRModuleMM
		x0, y0 := (pageW-size)/2, 88.0
		pdf.SetFillColor(0, 0, 0)
		for r, row := range bits {
			for c, dark := range row {
				if dark {
					pdf.Rect(x0+float64(c)*QRModuleMM, y0+float64(r)*QRModuleMM, QRModuleMM, QRModuleMM, "F")
				}
			}
		}
		y := y0 + size + 6
		f.set(t["code"], 10)
		pdf.SetXY(12, y)
		pdf.CellFormat(pageW-24, 6, f.show(t["code"]), "", 1, "C", false, 0, "")
		f.set(d.Code, 20)
		pdf.SetX(12)
		pdf.CellFormat(pageW-24, 10, d.Code, "", 1, "C", false, 0, "")
		f.set(t["order"], 9)
		pdf.SetX(12)
		foot := fmt.Sprintf("%s %s · %s %d %s %d · %s", t["order"], d.OrderNo, t["ticket"], i+1, t["of"], len(d.Seats), t["show"])
		pdf.CellFormat(pageW-24, 6, f.show(foot), "", 1, "C", false, 0, "")
	}
	if r := d.Receipt; r != nil {
		pdf.SetAutoPageBreak(true, 12) // a long receipt goes on over pages
		pdf.AddPage()
		pageW, _ := pdf.GetPageSize()
		f.set(t["receipt"], 18)
		pdf.SetXY(12, 14)
		pdf.CellFormat(pageW-24, 9, f.show(t["receipt"]), "", 1, "L", false, 0, "")
		tender := t[r.Tender]
		if tender == "" {
			tender = r.Tender
		}
		rows := [][2]string{{t["order"], d.OrderNo}, {t["paid"], r.PaidAt}}
		for _, s := range d.Seats {
			rows = append(rows, [2]string{s.Label + " · " + s.TicketType, s.Price})
		}
		if r.Discount != "" {
			rows = append(rows, [2]string{t["discount"] + " " + r.Voucher, "−" + r.Discount})
		}
		rows = append(rows, [2]string{t["total"], r.Total}, [2]string{t["tender"], tender})
		if r.Tender == "cash" {
			rows = append(rows, [2]string{t["given"], r.Tendered}, [2]string{t["change"], r.Change})
		}
		if r.SoldBy != "" {
			rows = append(rows, [2]string{t["seller"], r.SoldBy})
		}
		for _, row := range rows {
			pdf.SetX(12)
			f.set(row[0], 11)
			pdf.CellFormat(60, 7, f.show(row[0]), "B", 0, "L", false, 0, "")
			f.set(row[1], 11)
			pdf.CellFormat(pageW-84, 7, f.show(row[1]), "B", 1, "R", false, 0, "")
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// fontSet picks, for each text, a font that has its glyphs.
type fontSet struct {
	pdf      *fpdf.Fpdf
	text     string // family of the Latin font ("" the core Helvetica)
	cjk      string // family of the CJK font ("" none)
	fallback bool   // the core font: texts outside Latin-1 are shown transliterated
	tr       func(string) string
}

func newFonts(pdf *fpdf.Fpdf, fs Fonts) *fontSet {
	f := &fontSet{pdf: pdf}
	if b := fontBytes(fs.Text); b != nil {
		pdf.AddUTF8FontFromBytes("text", "", b)
		f.text = "text"
	} else {
		f.fallback = true
		f.tr = pdf.UnicodeTranslatorFromDescriptor("")
	}
	if b := fontBytes(fs.CJK); b != nil {
		pdf.AddUTF8FontFromBytes("cjk", "", b)
		f.cjk = "cjk"
	}
	return f
}

var fontFiles sync.Map // path -> []byte, read once per process

// fontBytes is the font file at path, read once; nil for "" or a file that cannot be read.
func fontBytes(path string) []byte {
	if path == "" {
		return nil
	}
	if b, ok := fontFiles.Load(path); ok {
		return b.([]byte)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	fontFiles.Store(path, b)
	return b
}

// set chooses the font for s at size points: the CJK font when s has a CJK character
// and one is embedded, else the text font.
func (f *fontSet) set(s string, size float64) {
	switch {
	case f.cjk != "" && hasCJK(s):
		f.pdf.SetFont(f.cjk, "", size)
	case f.text != "":
		f.pdf.SetFont(f.text, "", size)
	default:
		f.pdf.SetFont("Helvetica", "", size)
	}
}

// show is s as the chosen font can print it: unchanged with an embedded font; through
// the core font's code page otherwise (characters outside it become '?'), and a CJK
// text without a CJK font drops to '?' too.
func (f *fontSet) show(s string) string {
	if f.cjk == "" && hasCJK(s) {
		s = strings.Map(func(r rune) rune {
			if isCJK(r) {
				return '?'
			}
			return r
		}, s)
	}
	if f.fallback {
		s = strings.NewReplacer("·", "-", "−", "-").Replace(s)
		return f.tr(s)
	}
	return s
}

// hasCJK reports whether s has a character of the CJK blocks.
func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7AF || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFFEF ||
		r >= 0x20000 && r <= 0x2FA1F
}
