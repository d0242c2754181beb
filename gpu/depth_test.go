package gpu

import "testing"

func TestMinTasks(t *testing.T) {
	h100 := DeviceInfo{Ordinal: 0, Name: "NVIDIA H100 80GB HBM3", SMs: 132, Major: 9}
	a100 := DeviceInfo{Ordinal: 1, Name: "NVIDIA A100-SXM4-40GB", SMs: 108, Major: 8}
	tests := []struct {
		name string
		devs []DeviceInfo
		want int
	}{
		{"no GPU", nil, 0},
		{"empty list", []DeviceInfo{}, 0},
		{"one H100", []DeviceInfo{h100}, 2162688},
		{"H100 and A100", []DeviceInfo{h100, a100}, 8 * 2048 * 240},
		{"eight H100", []DeviceInfo{h100, h100, h100, h100, h100, h100, h100, h100}, 8 * 2162688},
		{"unknown SM count", []DeviceInfo{{Ordinal: 0}}, 0},
	}
	for _, tt := range tests {
		if got := MinTasks(tt.devs); got != tt.want {
			t.Errorf("%s: MinTasks = %d, want %d", tt.name, got, tt.want)
		}
	}
}
