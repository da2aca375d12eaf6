"""The Space owner's settings, read from the environment the Hub (or the owner) sets."""

import pytest

from corefbias.models.url_guard import AddressPolicy
from corefbias.space.settings import SpaceSettings


def test_the_owner_sets_the_endpoint_policy_in_the_environment(monkeypatch):
    assert SpaceSettings.from_env().endpoint_policy == AddressPolicy()  # published default: public addresses only
    monkeypatch.setenv("COREFBIAS_SPACE_ALLOW_PRIVATE_ENDPOINTS", "1")
    monkeypatch.setenv("COREFBIAS_SPACE_ALLOWED_ENDPOINTS", "127.0.0.1:8808")
    policy = SpaceSettings.from_env().endpoint_policy
    assert policy.allow_private and policy.allowed_sockets == {("127.0.0.1", 8808)}
    monkeypatch.setenv("COREFBIAS_SPACE_ALLOW_PRIVATE_ENDPOINTS", "maybe")
    with pytest.raises(ValueError, match="must be 1 or 0"):
        SpaceSettings.from_env()


def test_on_zerogpu_cluster_models_run_on_cuda_within_the_gpu_time_limit(monkeypatch):
    plain = SpaceSettings.from_env()
    assert (plain.device, plain.zero_gpu, plain.time_limit_s) == ("cpu", False, 900.0)
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    zero = SpaceSettings.from_env()
    assert (zero.device, zero.zero_gpu, zero.time_limit_s) == ("cuda", True, 120.0)
