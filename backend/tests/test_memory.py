"""Allocator statistics: current, peak, counts and reset."""

from __future__ import annotations

import gc

import torch


def test_allocation_is_counted_and_freed():
    gc.collect()
    torch.spyre.reset_peak_memory_stats()
    before = torch.spyre.memory_stats()
    t = torch.empty(1024, dtype=torch.float32, device="spyre")
    during = torch.spyre.memory_stats()
    assert during["allocated_bytes.all.current"] - before["allocated_bytes.all.current"] == 4096
    assert during["allocation.all.current"] == before["allocation.all.current"] + 1
    assert during["allocation.all.allocated"] == before["allocation.all.allocated"] + 1
    del t
    after = torch.spyre.memory_stats()
    assert after["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]
    assert after["allocation.all.freed"] == before["allocation.all.freed"] + 1


def test_peak_tracks_high_water_mark_and_resets():
    gc.collect()
    base = torch.spyre.memory_allocated()
    torch.spyre.reset_peak_memory_stats()
    big = torch.empty(1 << 20, dtype=torch.uint8, device="spyre")
    del big
    assert torch.spyre.memory_allocated() == base
    assert torch.spyre.max_memory_allocated() >= base + (1 << 20)
    torch.spyre.reset_peak_memory_stats()
    assert torch.spyre.max_memory_allocated() == base


def test_views_do_not_allocate():
    t = torch.zeros(64, device="spyre")
    count = torch.spyre.memory_stats()["allocation.all.allocated"]
    t.view(8, 8).t()[1:3]
    assert torch.spyre.memory_stats()["allocation.all.allocated"] == count


def test_cpu_tensors_are_not_counted():
    before = torch.spyre.memory_allocated()
    keep = torch.empty(1 << 16)
    assert torch.spyre.memory_allocated() == before
    del keep
