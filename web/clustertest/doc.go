// Package clustertest holds the tests of several seatflow instances behind one load
// balancer on a Redis Cluster (make cluster-up, then make cluster-test): a race of
// buyers over overlapping seats of several shows with a check of their history, the
// live seat map across instances, and the invariant check of every show against MySQL
// and every Redis master. They run only when SEATFLOW_CLUSTER_BASE names the
// balancer; the cluster's stores and webhook secret come from the SEATFLOW_* variables
// of its environment file (.cluster/cluster.env), which .ci/cluster/test exports.
package clustertest
