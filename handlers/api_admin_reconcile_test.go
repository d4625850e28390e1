package handlers

import (
	"encoding/json"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
)

// TestParseReconcileBody: the optional run body reads as a dry run and a show id given
// as a string; everything else is INVALID_REQUEST.
func TestParseReconcileBody(t *testing.T) {
	good := []struct {
		body string
		want reconcileRequest
	}{
		{``, reconcileRequest{}},
		{"  \n", reconcileRequest{}},
		{`{}`, reconcileRequest{}},
		{`{"dry_run":true}`, reconcileRequest{DryRun: true}},
		{`{"dry_run":false,"show_id":"7"}`, reconcileRequest{ShowID: 7}},
		{`{"dry_run":true,"show_id":null}`, reconcileRequest{DryRun: true}},
	}
	for _, g := range good {
		t.Run("ok "+g.body, func(t *testing.T) {
			got, err := parseReconcileBody([]byte(g.body))
			if err != nil || got != g.want {
				t.Errorf("got %+v, %v; want %+v", got, err, g.want)
			}
		})
	}
	bad := []string{
		`[1]`, `null`, `"x"`, `1`, `{`, `{"dry_run":"yes"}`, `{"dry_run":1}`, `{"show_id":"abc"}`,
		`{"show_id":""}`, `{"show_id":"0"}`, `{"show_id":0}`, `{"show_id":-3}`, `{"show_id":"-3"}`,
		`{"show_id":7}`, `{"dry_run":null}`, `{"show_id":7.5}`, `{"show_id":1e3}`, `{"show_id":"99999999999999999999"}`, `{"show_id":true}`,
		`{"show_id":["7"]}`, `{"dryrun":true}`, `{"dry_run":true} {}`, `{} x`,
	}
	for _, b := range bad {
		t.Run("bad "+b, func(t *testing.T) {
			if _, err := parseReconcileBody([]byte(b)); services.ErrorCode(err) != services.CodeInvalidRequest {
				t.Errorf("%v, want INVALID_REQUEST", err)
			}
		})
	}
}

// TestReportOut_NullsAndStrings: ids are strings; an absent seat, order, actor, error,
// scope and finish time are null (never omitted); findings are [] when there are none.
func TestReportOut_NullsAndStrings(t *testing.T) {
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	end := start.Add(1500 * time.Millisecond)
	admin, show := int64(3), int64(7)
	run := &reconcile.ReconcileRun{ID: 12, Trigger: reconcile.TriggerManual, ActorID: &admin, ActorEmail: "a@x.test",
		ShowID: &show, Status: reconcile.RunDone, Fixed: 1, FindingsCount: 2, StartedAt: start, FinishedAt: &end,
		Findings: []seats.Finding{
			{Kind: seats.FindingLiveNotHeld, ShowID: 7, SeatID: 101, OrderNo: "SF-1", Action: seats.ActionHold, Fixed: true},
			{Kind: seats.FindingZoneCount, ShowID: 7, Action: seats.ActionRecompute},
		}}
	var got map[string]any
	b, _ := json.Marshal(reportOut(run))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"run_id": "12", "trigger": "manual", "dry_run": false, "started_at": "2026-11-30T08:00:00Z",
		"finished_at": "2026-11-30T08:00:01Z", "fixed": 1.0, "findings_count": 2.0, "show_id": "7", "error": nil,
		"duration_ms": 1500.0, "status": "done"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if a, _ := got["actor"].(map[string]any); a["id"] != "3" || a["email"] != "a@x.test" {
		t.Errorf("actor = %#v", got["actor"])
	}
	fs, _ := got["findings"].([]any)
	if len(fs) != 2 {
		t.Fatalf("findings = %#v", got["findings"])
	}
	f0, f1 := fs[0].(map[string]any), fs[1].(map[string]any)
	if f0["seat_id"] != "101" || f0["order_no"] != "SF-1" || f0["show_id"] != "7" || f0["fixed"] != true {
		t.Errorf("seat finding = %#v", f0)
	}
	for _, k := range []string{"seat_id", "order_no"} {
		if v, ok := f1[k]; !ok || v != nil {
			t.Errorf("zone finding %s = %#v (present %v), want null", k, v, ok)
		}
	}
	empty := &reconcile.ReconcileRun{ID: 1, Trigger: reconcile.TriggerCron, Status: reconcile.RunRunning, StartedAt: start}
	b, _ = json.Marshal(reportOut(empty))
	got = nil
	_ = json.Unmarshal(b, &got)
	for _, k := range []string{"finished_at", "actor", "show_id", "duration_ms", "error"} {
		if v, ok := got[k]; !ok || v != nil {
			t.Errorf("running cron run: %s = %#v (present %v), want null", k, v, ok)
		}
	}
	if fs, ok := got["findings"].([]any); !ok || len(fs) != 0 {
		t.Errorf("findings = %#v, want []", got["findings"])
	}
}
