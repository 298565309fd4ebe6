"""What gpuwatch reads from PyTorch; torch is imported here, on first use."""


def cuda_memory_scalars(device=None):
    """The caching allocator's counters for device, or {} without torch/CUDA."""
    try:
        import torch
    except ImportError:
        return {}
    if not torch.cuda.is_available():
        return {}
    return {
        "torch_allocated_bytes": torch.cuda.memory_allocated(device),
        "torch_reserved_bytes": torch.cuda.memory_reserved(device),
        "torch_max_allocated_bytes": torch.cuda.max_memory_allocated(device),
    }
