package views

import (
	"testing"
	"time"
)

// TestUTCOffset tells a zone's offset at an instant, summer time included.
func TestUTCOffset(t *testing.T) {
	winter, summer := time.Date(2027, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2027, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		zone string
		at   time.Time
		want string
	}{
		{"Asia/Shanghai", winter, "UTC+08:00"},
		{"Europe/London", winter, "UTC+00:00"},
		{"Europe/London", summer, "UTC+01:00"},
		{"America/St_Johns", winter, "UTC-03:30"},
		{"Asia/Kathmandu", summer, "UTC+05:45"},
	} {
		t.Run(tc.zone+" "+tc.at.Format("Jan"), func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			if got := UTCOffset(loc, tc.at); got != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
		})
	}
}
