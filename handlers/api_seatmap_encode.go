package handlers

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"sync"
	"sync/atomic"

	"seatflow/services"
)

// segmentSeats is how many seats one gzip segment of a seat map holds (about 24 KB of
// JSON): a rebuild compresses again only the segments whose seats changed state.
const segmentSeats = 256

// seatMapLayout is the JSON of one show's seat map (seatMapOut, as json.Marshal writes
// it) cut where the seat states go: everything but the states is encoded once per hall,
// so a rebuild after a change writes the states into it instead of encoding the map.
// It also keeps each segment's latest gzip encoding by the states it was made of.
type seatMapLayout struct {
	showID int64
	hall   *services.Hall
	head   []byte // `{"show_id":"5","rows":…,"seats":[`
	// pre holds, seat after seat, each seat's JSON up to its state, `{"id":…,"state":"`
	// (with the comma before it but the first); seat i's ends at ends[i]
	pre  []byte
	ends []int32
	tail []byte // `]}`

	mu   sync.Mutex
	segs []gzSegment // per segment: the last compressed encoding

	// fitted is the last hall read again from MySQL (the catalog's cache renews it every
	// minute) found to have hall's very seats (fits)
	fitted atomic.Pointer[services.Hall]
}

// fits reports whether the layout writes hall's seat map: hall is the one it was made
// for, or a reading of it with the same grid and seats (id, label, place, zone, kind).
func (l *seatMapLayout) fits(h *services.Hall) bool {
	if h == l.hall || h == l.fitted.Load() {
		return true
	}
	a := l.hall
	if a.Rows != h.Rows || a.Cols != h.Cols || len(a.Seats) != len(h.Seats) {
		return false
	}
	for i := range a.Seats {
		x, y := &a.Seats[i], &h.Seats[i]
		if x.ID != y.ID || x.Label != y.Label || x.Row != y.Row || x.Col != y.Col || x.ZoneCode != y.ZoneCode || x.Kind != y.Kind {
			return false
		}
	}
	l.fitted.Store(h)
	return true
}

// gzSegment is one segment's raw deflate encoding (ended by a sync flush) and the
// states (one code byte per seat) it encodes.
type gzSegment struct {
	codes string
	data  []byte
}

// seatMapBody is a build's answer for the seat-map cache: the layout and the states to
// write into it (states[i] is hall.Seats[i]'s).
type seatMapBody struct {
	layout *seatMapLayout
	states []string
}

// newSeatMapLayout encodes hall's seat map for showID with json.Marshal, seat by seat,
// around an empty state. Errors: json.Marshal's.
func newSeatMapLayout(showID int64, hall *services.Hall) (*seatMapLayout, error) {
	head, err := json.Marshal(seatMapJSON{ShowID: id(showID), Rows: hall.Rows, Cols: hall.Cols, Seats: []seatJSON{}})
	if err != nil {
		return nil, err
	}
	l := &seatMapLayout{showID: showID, hall: hall, head: head[:len(head)-2], tail: []byte("]}"), ends: make([]int32, len(hall.Seats))}
	for i, s := range hall.Seats {
		b, err := json.Marshal(seatOut(s, ""))
		if err != nil {
			return nil, err
		}
		if i > 0 {
			l.pre = append(l.pre, ',')
		}
		l.pre = append(l.pre, b[:len(b)-2]...) // `…,"state":"` : the state and `"}` follow
		l.ends[i] = int32(len(l.pre))
	}
	return l, nil
}

// encode returns the map's JSON with states written in (byte for byte json.Marshal of
// seatMapOut), and one code byte per seat for the segments.
func (l *seatMapLayout) encode(states []string) (body, codes []byte) {
	n := len(l.head) + len(l.pre) + len(l.tail)
	for _, st := range states {
		n += len(st) + 2
	}
	body = make([]byte, 0, n)
	codes = make([]byte, len(states))
	body = append(body, l.head...)
	for i := range l.ends {
		body = append(append(append(body, l.seatPre(i)...), states[i]...), '"', '}')
		if states[i] != "" {
			codes[i] = states[i][0] // free, held, sold, blocked: one letter each
		}
	}
	return append(body, l.tail...), codes
}

// segmentBounds returns where each segment's bytes start in body (and the end), as
// encode laid them out: the head goes with the first segment, the tail with the last.
func (l *seatMapLayout) segmentBounds(body []byte, states []string) []int {
	nseg := (len(l.ends) + segmentSeats - 1) / segmentSeats
	if nseg == 0 {
		return []int{0, len(body)}
	}
	out := make([]int, 0, nseg+1)
	at := 0
	for i := range l.ends {
		if i%segmentSeats == 0 {
			out = append(out, at)
			if i == 0 {
				at += len(l.head)
			}
		}
		at += len(l.seatPre(i)) + len(states[i]) + 2
	}
	return append(out, len(body))
}

// seatPre is seat i's JSON up to its state.
func (l *seatMapLayout) seatPre(i int) []byte {
	from := int32(0)
	if i > 0 {
		from = l.ends[i-1]
	}
	return l.pre[from:l.ends[i]]
}

// flateWriters are BestSpeed compressors reused across segments.
var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// finalBlock ends a deflate stream made of sync-flushed segments: an empty final block.
var finalBlock = func() []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	_ = w.Close()
	return b.Bytes()
}()

// gzip returns body (encode's, of states and codes) gzipped: each segment compressed on
// its own (no reference crosses segments) and ended by a sync flush, so the segments'
// encodings concatenate into one deflate stream; a segment whose states are those of
// its last encoding is not compressed again.
func (l *seatMapLayout) gzip(body []byte, states []string, codes []byte) []byte {
	bounds := l.segmentBounds(body, states)
	nseg := len(bounds) - 1
	parts := make([][]byte, nseg)
	l.mu.Lock()
	if len(l.segs) != nseg {
		l.segs = make([]gzSegment, nseg)
	}
	for k := range parts {
		c := codes[min(k*segmentSeats, len(codes)):min((k+1)*segmentSeats, len(codes))]
		if seg := l.segs[k]; seg.data != nil && seg.codes == string(c) {
			parts[k] = seg.data
		} else {
			parts[k] = deflateSegment(body[bounds[k]:bounds[k+1]])
			l.segs[k] = gzSegment{codes: string(c), data: parts[k]}
		}
	}
	l.mu.Unlock()
	size := 10 + len(finalBlock) + 8
	for _, p := range parts {
		size += len(p)
	}
	out := make([]byte, 0, size)
	// RFC 1952 header: deflate, no flags, no time, fastest, unknown OS
	out = append(out, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255)
	for _, p := range parts {
		out = append(out, p...)
	}
	out = append(out, finalBlock...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
	return binary.LittleEndian.AppendUint32(out, uint32(len(body)))
}

// deflateSegment compresses b on its own, ended by a sync flush (byte-aligned, not final).
func deflateSegment(b []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b)/8 + 64)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, _ = w.Write(b)
	_ = w.Flush()
	flateWriters.Put(w)
	return buf.Bytes()
}
