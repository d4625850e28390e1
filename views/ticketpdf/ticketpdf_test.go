package ticketpdf_test

import (
	"bytes"
	"fmt"
	"testing"

	"seatflow/views/ticketpdf"
	"seatflow/views/ticketpdf/pdfread"
)

// TestTicketPDF_PagesAndQRCodes: one page per seat and a receipt page; each seat's page
// draws a QR code that decodes to the ticket reference, in both languages and with the
// core font when no TrueType font is found.
func TestTicketPDF_PagesAndQRCodes(t *testing.T) {
	ref := "SF1.0MIVW3K2QABCDEF.Zm9vYmFyYmF6cXV4"
	doc := ticketpdf.Doc{Movie: "Stalker · 潜行者", Cinema: "Riverside", Hall: "Hall 1", Starts: "Mon 30 Nov 19:30 CST",
		OrderNo: "0MIVW3K2QABCDEF", Ref: ref, Code: "K3M9P-QR7TX",
		Seats: []ticketpdf.Seat{{Label: "F7", Zone: "Standard", TicketType: "Adult", Price: "¥45.00"},
			{Label: "F8", Zone: "Standard", TicketType: "学生", Price: "¥30.00"}},
		Receipt: &ticketpdf.Receipt{Total: "¥75.00", Tender: "cash", Tendered: "¥100.00", Change: "¥25.00", PaidAt: "Mon 30 Nov 18:02 CST"}}
	all := ticketpdf.FindFonts()
	cases := map[string]struct {
		lang  string
		fonts ticketpdf.Fonts
	}{
		"en, embedded fonts": {"en", all},
		"zh, embedded fonts": {"zh", all},
		"zh, core font only": {"zh", ticketpdf.Fonts{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := doc
			d.Lang, d.Fonts = tc.lang, tc.fonts
			var buf bytes.Buffer
			if err := ticketpdf.Render(&buf, d); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
				t.Fatal("not a PDF")
			}
			if n := pdfread.Pages(buf.Bytes()); n != 3 {
				t.Fatalf("%d pages, want 2 tickets and a receipt", n)
			}
			codes, err := pdfread.QRCodes(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(codes) != 2 || codes[0] != ref || codes[1] != ref {
				t.Fatalf("QR codes %q", codes)
			}
		})
	}
}

// TestTicketPDF_ChineseNeedsACJKFont: with a CJK font found, a Chinese ticket embeds it
// (the glyphs print); without one it falls back to English labels.
func TestTicketPDF_ChineseNeedsACJKFont(t *testing.T) {
	fonts := ticketpdf.FindFonts()
	if fonts.CJK == "" {
		t.Skip("no TrueType font with CJK glyphs here (Debian: fonts-droid-fallback); Chinese prints as English")
	}
	var zh, en bytes.Buffer
	d := ticketpdf.Doc{Lang: "zh", Movie: "潜行者", OrderNo: "0X", Ref: "SF1.0X.x", Code: "K3M9P-QR7TX",
		Seats: []ticketpdf.Seat{{Label: "F7", TicketType: "成人"}}, Fonts: fonts}
	if err := ticketpdf.Render(&zh, d); err != nil {
		t.Fatal(err)
	}
	d.Fonts.CJK = ""
	if err := ticketpdf.Render(&en, d); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(zh.Bytes(), []byte("/BaseFont /utf8cjk")) || bytes.Contains(en.Bytes(), []byte("/BaseFont /utf8cjk")) {
		t.Fatal("the CJK font is not embedded exactly when found")
	}
}

// TestTicketPDF_QRCodesReadWhenAStreamEndsInACarriageReturn: about one compressed page in
// 256 ends in the byte 0x0D; the reader must still read every page's QR code (searching
// for "\r\nendstream" instead of reading /Length bytes dropped that page, and the box
// office test then saw one code of two).
func TestTicketPDF_QRCodesReadWhenAStreamEndsInACarriageReturn(t *testing.T) {
	for i := range 5000 {
		ref := fmt.Sprintf("SF1.0MIVW3K2Q%06d.Zm9vYmFyYmF6cXV4", i)
		d := ticketpdf.Doc{Lang: "en", Movie: "Stalker", OrderNo: "0MIVW3K2Q", Ref: ref, Code: "K3M9P-QR7TX",
			Seats: []ticketpdf.Seat{{Label: "F7", TicketType: "Adult"}, {Label: "F8", TicketType: "Adult"}}}
		var buf bytes.Buffer
		if err := ticketpdf.Render(&buf, d); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(buf.Bytes(), []byte("\r\nendstream")) {
			continue
		}
		codes, err := pdfread.QRCodes(buf.Bytes())
		if err != nil || len(codes) != 2 || codes[0] != ref || codes[1] != ref {
			t.Fatalf("render %d: QR codes %q (%v), want 2 × %q", i, codes, err, ref)
		}
		t.Logf("render %d has a stream ending in a carriage return; both codes read", i)
		return
	}
	t.Fatal("no render of 5000 had a stream ending in a carriage return")
}
