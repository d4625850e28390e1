package store

import (
	"fmt"
	"slices"
	"strings"
)

// showAndIDs is a WHERE condition matching rows whose showCol is a show of ids and whose
// col is among that show's ids: "(showCol = ? AND col IN (?, ...)) OR ...", shows in id
// order, each show's ids sorted and once; "" when no show has ids. It sorts the slices
// of ids in place.
func showAndIDs(showCol, col string, ids map[int64][]int64) (string, []any) {
	shows := make([]int64, 0, len(ids))
	for s, list := range ids {
		if len(list) > 0 {
			shows = append(shows, s)
		}
	}
	slices.Sort(shows)
	var parts []string
	var args []any
	for _, s := range shows {
		list := ids[s]
		slices.Sort(list)
		list = slices.Compact(list)
		parts = append(parts, fmt.Sprintf("(%s = ? AND %s IN (%s))", showCol, col, strings.TrimSuffix(strings.Repeat("?, ", len(list)), ", ")))
		args = append(args, s)
		for _, id := range list {
			args = append(args, id)
		}
	}
	return strings.Join(parts, " OR "), args
}
