"""``passfuzz import-model`` on PyTorch models: a module a Python file makes, and a saved
``torch.export`` program, through tvm.relax.frontend.torch.from_exported_program. The tests that
need torch run where it is installed (``pip install ".[torch]"``; CI does not install it, see
README "Seeds and models"), and skip elsewhere."""

import importlib.util

import numpy as np
import pytest

from passfuzz.campaign.seeds import find_seeds

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason='needs torch: pip install ".[torch]"')

NETWORK = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return torch.softmax(self.fc(y.mean(dim=(2, 3))), dim=-1)


def model():
    torch.manual_seed(0)
    net = Net()
    net.bn.running_mean.uniform_(-0.5, 0.5)  # statistics of its own, so that batch_norm is no identity
    net.bn.running_var.uniform_(0.5, 2.0)
    return net, (torch.rand(2, 3, 8, 8) * 2 - 1,)


def not_a_model():
    return 42
'''


def network(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(NETWORK)
    return path


def made(path):
    spec = importlib.util.spec_from_file_location("net_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model()


@needs_torch
def test_a_module_a_python_file_makes_becomes_a_seed_that_computes_what_torch_does(run_cli, tmp_path):
    import torch

    from passfuzz.ir.graph import evaluate

    path = network(tmp_path)
    result = run_cli("import-model", f"{path}::model", "--out", str(tmp_path / "seeds"), timeout=600)
    assert result.returncode == 0, result.stderr
    assert "model.json: imports as" in result.stdout and "conv2d" in result.stdout and "softmax" in result.stdout
    (program,) = find_seeds([tmp_path / "seeds"]).programs
    net, (x,) = made(path)
    assert [p.role for _, p in program.params][:2] == ["input", "weight"]
    assert np.array_equal(program.params[0][1].array(), x.numpy())  # the example input is the argument
    (y,) = evaluate(program)
    with torch.no_grad():
        assert np.allclose(y, net.eval()(x).numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
def test_a_saved_export_imports_as_the_module_it_was_exported_from(tmp_path):
    import torch

    from passfuzz.relax.importer import import_module
    from passfuzz.relax.models import import_model

    path = network(tmp_path)
    net, inputs = made(path)
    torch.export.save(torch.export.export(net.eval(), inputs), str(tmp_path / "net.pt2"))
    mod, arguments = import_model(str(tmp_path / "net.pt2"))
    saved = import_module(mod, arguments=arguments, argument_ranges=True)
    mod, arguments = import_model(str(path))  # FILE.py alone: the callable named model
    assert saved == import_module(mod, arguments=arguments, argument_ranges=True)


@needs_torch
def test_a_callable_that_makes_no_module_is_one_line(run_cli, tmp_path):
    path = network(tmp_path)
    result = run_cli("import-model", f"{path}::not_a_model", f"{path}::missing", "--out", str(tmp_path), timeout=600)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"passfuzz import-model: {path}::not_a_model() returns int, not (nn.Module, example_inputs)",
        f"passfuzz import-model: {path}: defines no callable missing returning (nn.Module, example_inputs)"]


def test_without_torch_a_pytorch_model_is_one_line_naming_the_extra(run_cli, tmp_path):
    path = network(tmp_path)
    result = run_cli("import-model", f"{path}::model", "--out", str(tmp_path), without=("torch",), timeout=300)
    assert result.returncode == 1
    assert result.stderr.strip() == 'passfuzz import-model: reading PyTorch models needs torch: pip install ".[torch]"'


def test_a_model_in_no_form_passfuzz_reads_is_a_usage_error(run_cli, tmp_path):
    (tmp_path / "net.h5").write_text("")
    result = run_cli("import-model", str(tmp_path / "net.h5"), "--out", str(tmp_path), timeout=300)
    assert result.returncode == 2 and "not a model passfuzz reads (.onnx, .pt2" in result.stderr, result.stderr
