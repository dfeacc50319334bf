import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.edits import indentation, module_name
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import arguments_by_parameter, method_call
from torchlint.semantics.devices import in_cpu_only_branch
from torchlint.semantics.dtypes import program_makes_complex
from torchlint.semantics.instantiation import unbuilt_definitions
from torchlint.semantics.elements import element_loop, walked_tensor
from torchlint.semantics.escapes import accumulated, dropped_unread, walked_in_python
from torchlint.semantics.names import dotted_name
from torchlint.semantics.frameworks import AFTER_FIT_HOOKS, ENGINE, LIGHTNING, TRAINING_HOOKS, framework_of
from torchlint.semantics.execution import Execution, Frequency
from torchlint.semantics.frequency import is_step_loop, iterated_of
from torchlint.semantics.training import (
    OTHER_LOOPS,
    body_nodes,
    called_function,
    called_every_step_elsewhere,
    called_every_training_step,
    environment_steps,
    feeds_batch_source,
    loop_trains,
    repeated_with_training,
    runs_with_training_steps,
)
from torchlint.semantics.stopping import decides_stop, returned_to, returns_one_of
from torchlint.semantics.trained_forward import in_trained_forward, walked_every_step, without_grad
from torchlint.semantics.tree import bound_names, descendants, descendants_of_type, in_source_order, iterated_source, module_nodes, nodes_of_type, per_module, scope_descendants
from torchlint.semantics.kinds import HOST_KINDS, MAYBE_DEVICE_KINDS, Kind
from torchlint.semantics.project import project_function
from torchlint.semantics.values import ValueInference, string_value

SYNC_METHODS = frozenset({"item", "cpu", "tolist", "to"})
# Module methods: `.cpu()` followed by one of these moved a module, not a tensor.
MODULE_ACCESSORS = frozenset(
    "parameters named_parameters state_dict buffers named_buffers modules named_modules children eval train".split()
)
# Calls that hand a value over to the host's world (collecting, printing, writing).
HOST_SINKS = frozenset({"append", "extend", "print", "write", "save", "imwrite", "decode"})
# Host-only output: NumPy, files and text. A loop over a data loader that does not train and
# sends values there is an inference, generation or evaluation loop producing that output.
OUTPUT_SINKS = frozenset("numpy tolist write save imwrite imsave savetxt decode string format join dump".split())
DATASET_BASES = frozenset(
    {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.dataset.IterableDataset"}
)
DATA_FUNCTIONS = ("__getitem__", "__iter__", "__next__", "collate")
# A file that may run on Apple's MPS backend, which has no float64.
MPS = re.compile(r"[\"']mps|\.mps\b")


def _receiver_chain(receiver: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The receiver of a method call and what it is computed from by method calls and torch
    function arguments: `torch.flatten(pred).detach()` gives itself, `torch.flatten(pred)`
    and `pred`."""
    stack = [receiver]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, cst.Call):
            if isinstance(item.func, cst.Attribute):
                stack.append(item.func.value)
            if (dotted_name(item.func) or "").startswith("torch."):
                stack.extend(arg.value for arg in item.args if arg.keyword is None and not arg.star)


class SyncInLoop(Rule):
    """## What it does
    Flags `.item()`, `.cpu()`, `.to("cpu")` and `.tolist()` on a tensor inside a loop body
    (`for`, `while`, comprehension) that runs once per training step or per batch of the
    per-epoch validation (and, in preview, in other loops: generation, inference helpers),
    and in a same-file helper that such a loop calls every iteration (reported in the
    helper: `n_correct = pred.eq(gold).sum().item()` in `cal_performance()`). A function or
    method another module calls in its training step loop (`agent.update_parameters(...)` on
    an instance of the project class, a metric helper) runs every step: its syncs are reported
    in its body and in the methods it calls. So does a function called there through a list,
    tuple or dict of handles that the same module builds (`for met in self.metric_ftns:
    met(output, target)` after `self.metric_ftns = [accuracy, top_k_acc]`); a `getattr(module,
    name)` with a name chosen at run time (`[getattr(module_metric, m) for m in
    config["metrics"]]`) stands for every public function of that project module, an
    approximation, since the names come from a configuration. The instance may come from a project factory
    function (`agent = make_agent(...)` returning `CurlSacAgent(...)`), and a method that
    trains through another method of its class (`update()` calling `self.update_critic()`)
    is a training step itself. A loop nested in a loop that trains runs with training too
    (a loop over the samples of each batch: `int(lengths[i].item())` per sample), not one
    nested in a per-epoch evaluation loop, whose per-sample values are often its output. A
    helper that the training loop and a final `test()` loop both call runs as often as the
    training loop calls it. In a `LightningModule`, the body of `test_step` or `predict_step`
    (the hooks of `trainer.test()` and `trainer.predict()`, one pass after the fit) is the
    preview variant; `validation_step` runs every epoch of the fit. A function another module calls in its loop over epochs (the
    engine's
    `evaluate()`) runs every epoch. A method that runs a backward pass itself
    (`trainer.train_step(batch)`) called in this file's step loop runs in that loop. A
    function an engine is handed with a data loader (`engine.train(h, train_loader, epochs,
    optimizer)`) and the hooks it runs for every batch (`engine.hooks["on_forward"] = ...`)
    run every step (see `semantics.frameworks`). A step function that a factory returns
    (`train_step = make_train_step(model, loss_fn, optimizer)`, or kept on `self` as
    `self.train_step_fn = self._make_train_step_fn()`) runs as often as the calls of the
    names bound to it.
    `.item()`, `.cpu()` or `.tolist()` of each element of a tensor in a loop over its
    elements (`for i in range(len(lengths)): n = int(lengths[i].item())`, `for length in
    seq_lengths: length.item()`, `for j in range(y.size(0)): psnr(x[j].cpu().numpy(), ...)`:
    a loop over the batch dimension walks every tensor of the batch; so does `for i, vec in
    enumerate(batch)` for `predicted[i]`; a part of each row, `r[0].item()` in `for r in
    ranks:`, and a comprehension over the tensor, `[r[0].item() for r in ranks]`, read
    element by element too) inside a loop over training or per-epoch validation
    batches, in a framework's batch hook (Lightning's `validation_step`), or in the
    `forward()` of a torch module the project builds and trains, or a helper of it, also in a
    loop of it (`for module in self.sequential:`; not a forward with gradients off, nor a
    module that runs no layers unless another module of its file builds it: a post-processor
    of outputs; nor in a library that no training program of the project uses: a trained
    forward's inputs are the batches training moved), is reported even where the loop needs the values on the host (to
    slice or size other tensors, to compute a metric in NumPy): each element is a
    synchronisation of its own, and one `.tolist()` or `.cpu()` before the loop reads them
    all (`semantics.elements`).
    Silent for a read-back of a value that the iteration already read back for its environment
    (`env.step(action.item())`, then `memory.push(state, action.item())`, with no rebinding
    between): that read is needed, and the second waits for nothing. Silent, likewise, for
    a number's read-back (`loss.item()`, `loss.cpu().item()`) in a loop that does not train
    whose every iteration also reads a device value straight into host output
    (`preds.append(out.cpu().numpy())` for a scikit-learn metric) in a block that holds it:
    the iteration waits there in any case, before or after the number. Reported, on the other
    hand, is every other read of an iteration, also one after an earlier read that already
    waited (`total += loss.item()`, then `correct += (out == y).sum().item()`): the device has
    little left to do by then, but the reads go together when the values move to the device,
    and on the benchmark's labels such reads were true 280 times and false 57 times (round 27
    measured silencing them, and kept them). Silent in a branch that runs only without CUDA (the `else` of `if
    torch.cuda.is_available():` or of `if x.is_cuda:`).
    In a module's `forward()`, which every training step runs, `.item()` and `.tolist()` of a
    value it returns as it is (`return {"loss": loss, "elbo": elbo.item()}`, also through a
    name bound to such a display: `loss_item = {"loss": loss.item()}`, then `return loss,
    loss_item`) are reported: the
    numbers only serve the caller's logging (not in classes the project never builds). So is
    `.item()` of a buffer the module registers (`if self.initted.item() == 0:`, `z =
    self.params[0].item()`) in the `forward()` of a module the project trains: the buffer
    moved to the device with its module, and the read waits on every step.
    A call in such a loop of a helper of another project module that reads a value back from
    the device (`return t.item()` after `.cuda()` or a collective such as `dist.all_reduce`:
    `misc.all_reduce_mean(loss_value)`) is reported at the call, and so is such a call in a
    function another module's training step loop calls every iteration (`return loss,
    to_cpu(components)` in a `compute_loss`). A loop's iterable names an epoch only outside
    its keyword arguments and f-strings (`tqdm(loader, desc=f"Epoch {epoch}")` iterates
    batches).

    ## Why is this slow?
    Each of these calls copies device memory to the host and blocks the Python thread until
    every kernel queued so far has finished. The CPU can no longer run ahead and queue the
    next step, so the GPU idles while Python works. Reported costs range from 5-10% of step
    time in small jobs to 40-50 ms of `cudaStreamSynchronize` per step in an LLM fine-tune; the
    cost is negligible only when each step does little GPU work.

    `.numpy()` is not reported on its own: it only works on tensors already in host memory,
    so the synchronisation happened at the `.cpu()` before it, which is reported. A chain such
    as `.cpu().numpy().tolist()` is reported once, at its first call.

    To stay precise the rule is silent:
    - outside loops, and in files that never mention a device (`cuda`, `device`, `.to(`, ...),
      which run on the CPU where these calls cost nothing;
    - on values known to live on the host: NumPy arrays, Python numbers, tensors created
      without `device=` or moved with `.cpu()`, results of host-only libraries
      (`r2_score(y, p).item()`: scikit-learn, SciPy, pandas) and modules
      (`model.cpu().state_dict()`);
    - in comprehensions that map over a collection (`[t.item() for t in losses]`): after the
      first element's wait the device is idle, so the comprehension costs what one call costs
      where it stands; inside a step loop it is reported, over a data loader it is a step loop;
    - in loops that run once per epoch or once per call rather than once per step: loops
      whose target or iterable names an epoch (not a progress bar over a loader named for the
      epoch it shows: `with tqdm(loader) as tepoch:`, then `for x, y in tepoch:`), loops over dict entries or parameters
      (`.items()`, `.parameters()`, ...) and over literal lists;
    - behind a guard inside the loop: a logging interval (`if step % 100 == 0`, a test naming
      `log`, `print`, `verbose`, `interval`, `freq`, `every`, ...) or a single step
      (`if i == 0`); but a pass over a data loader under an interval test (`if step %
      val_interval == 0: for batch in val_loader:`) is an evaluation loop of its own, whose
      per-batch waits are reported as those of a validation function called there are;
    - where a helper the loop calls returns the value and it decides whether the loop
      stops, training or not: a test that leaves the loop (`break`/`return`) or the loop
      condition reads it, or a name the loop computes from it (early stopping: `loss_val,
      acc_val = validate()`, then `if loss_val < best: ... else: bad_counter += 1` before
      `if bad_counter == patience: break`; the values returned with it add no wait), also
      when the helper returns a name it bound the value to (`loss_val = loss.item()`, then
      `return loss_val, acc`) or the loop appends it to a list the stop test reads
      (`loss_values.append(train(epoch))`, then `if loss_values[-1] < best:`);
    - where a loop that does not train needs the value on the host: it decides the loop
      (autoregressive decoding, convergence checks), the loop reads user `input()`, the value goes to host-only output (`.cpu().numpy()`, a
      NumPy call, also of a name it is bound to through torch calls on the host:
      `pred_cpu = pred.cpu()`, then `torch.flatten(pred_cpu).numpy()`; a file, text, iteration over `x.tolist()`, a dict key such as an image id
      for an evaluator): inference, generation and evaluation loops exist to produce such
      values (not a copy deleted or rebound unread, nor a running total such as
      `acc += (p == y).cpu().numpy().mean()`); or a loop that is not over a data loader hands each result to the host
      (`samples.append(x.cpu())`, `print(...)`);
    - where a loop hands the value to the object it draws its batches from (priorities of a
      replay buffer, `rb.update_priorities(idx, p)` beside `rb.sample(n)`): the next batch
      depends on it, training or not;
    - in a helper called from a loop that steps a Gym environment (`act(state)` may compute
      the action the environment needs; in a helper of another module, when every loop that
      calls it hands what it returns to the environment's `step()` and it takes no training
      step itself: `action, logp = agent.act(state)`, then `env.step(action)`), and in helpers called from loops that neither train
      nor run every epoch (no preview variant: the value may be what that loop produces);
    - in data and test code: `Dataset` subclasses, `__getitem__`, collate functions, and
      `unittest` classes, `test_*` functions and `test_*.py` files.

    An `assert` on a device value (`assert (ts >= last).all().item()`) waits as any read-back
    does: Python runs it unless started with `-O`, which training jobs rarely are (since round
    23; two labellers of fresh batches counted such asserts in training steps and per-epoch
    validation as costs); in a loop that does not run with training (generation, a one-off
    pass) the check decides whether the loop goes on, and stays silent.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    ```

    ## Use instead
    Keep the value on the device and convert once after the loop, or every N steps:
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    total = total.item()
    ```
    `torchlint.reference.RunningMean` keeps such a running value on the device and syncs
    once, when it is read.

    ## Fix applicability
    Unsafe, and only for the accumulation `total += x.item()` where `total` starts from a
    number literal before the loop and is not read inside it, and the loop cannot be left
    early (no `return`, `yield`, or enclosing `try`): the accumulator becomes a tensor during
    the loop and is converted back once after it. It sums exactly what Python would: in
    float64 (`x.detach().double()`) when the start is a float or the values are known to be
    floats (a `.mean()`, a name such as `loss` that the loop does not bind to an integer value,
    `loss = (pred != y).sum()`), so a bfloat16 or float16 loss loses no
    precision; as an int64 count (`x.detach()`) for the `.sum()` of a comparison with an int
    start. It is unsafe because the accumulator is a tensor inside the loop, and other code
    in the program could read it there (also without naming it: `"%(total)s" % locals()`
    prints the tensor's text). No fix when the values may be integers or floats (an
    int start and an unknown value: the sum's type would not be known; a uint8 or int32
    counter could overflow), when a function or lambda defined in the same scope mentions the
    accumulator (called in the loop, it would see a tensor), also, for an accumulator the
    function declares `global` or `nonlocal`, any other function of the file that reads it
    (a logger's method, a generator the loop draws from, a sibling closure: `json.dumps` of
    a tensor raises), when the file looks names up by their text (`globals()[name]`,
    `eval("total")`, `exec`), which a logger may do for the accumulator, when the file may run on Apple's MPS, which has no float64, or, for a
    float64 sum, when the program may make complex values (`semantics.dtypes`: a complex
    loss, `(spec * spec.conj()).mean()`, whose `.item()` is a Python complex that
    `.double()` would turn into its real part). Other
    uses get no fix.

    ## Measured precision
    Stable in loops that run with training (`semantics.frequency.repeated_with_training`):
    loops that train (a backward pass in the loop or in a same-file function it calls, or a
    call named for training such as `optimizer.step()`), and loops run again every epoch of a
    program that trains (the per-epoch validation loop): 0.99 on the dev half of the
    real-code benchmark (145 TP, 1 FP) and 0.97 held out (159 TP, 4 FP, fifteen fresh
    repositories included; the false ones two syncs in a learning-rate finder's one-off loop,
    and an `.item()` and a `.tolist()` for the BLEU score in a validation loop that syncs
    anyway). Other loops (generation,
    inference helpers, code whose frequency is unknown) are a preview variant, reported only
    with `--preview`: 0.08 dev (4/44), 0.02 held out (1/53), where host output is often the loop's purpose. Silent in programs that
    never train (evaluation, generation and feature-dump scripts, see
    `semantics.training.inference_only`). Fresh batch 21, measured before any change made
    for it: 0.55 (34/62), most false findings CPU-only teaching notebooks; 0.60 (34/57) after
    notebooks that name no device were read as running on the CPU. See docs/precision.md.
    """

    code = "TL101"
    impact = "high"
    name = "sync-in-loop"
    preview_variant = OTHER_LOOPS
    summary = "Host-device synchronisation (`.item()`, `.cpu()`, `.to(\"cpu\")`, `.tolist()`) inside a step loop"
    # The sync methods, training code that may call a helper of another module that syncs,
    # and calls of helpers named for a move to the host (`to_cpu(...)` in a loss function).
    triggers = (".item(", "cpu(", ".tolist(", "\"cpu\"", "'cpu'", "backward", "optim")
    fix_applicability = Applicability.UNSAFE
    frequencies = frozenset({Frequency.PER_STEP})
    bad_examples = (
        "import torch\nfor x, y in loader:\n    loss = model(x.cuda())\n    print(loss.item())\n",
        "import torch\nfor x, y in val_loader:\n    correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()\n",
        "import torch\nfor x in loader:\n    values = [t.item() for t in model(x.cuda())]\n",
        "import torch\nfor x in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    y = loss.cpu().numpy().tolist()\n",
    )
    good_examples = (
        "import torch\nloss = model(x.cuda())\nprint(loss.item())\n",
        "import torch\nfor x in loader:\n    print(model(x).item())\n",
        "import torch\nimport numpy as np\nfor i in range(10):\n    a = np.ones(3)\n    print(a.tolist())\n",
        "import torch\nfor step, (x, y) in enumerate(loader):\n    loss = model(x.cuda())\n    if step % 100 == 0:\n        print(loss.item())\n",
        "import torch\nfor name, p in model.cuda().named_parameters():\n    print(name, p.norm().item())\n",
        "for x, y in loader:\n    print(loss.item())\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Per loop: the blocks holding a read-back the loop needs on the host (`_iteration_waits_anyway`).
        self.waiting_blocks: Dict[int, FrozenSet[int]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] not in SYNC_METHODS:
            self._check_helper_of_another_module(node)
            return
        receiver, method = found
        if not _is_sync_call(node, method) or self._on_host(receiver) or self._moves_a_module(node):
            return
        if in_cpu_only_branch(self.ctx.path_to(node), self.ctx.qualified_name):
            return  # `else: x = x.cpu()` after `if torch.cuda.is_available():`
        execution = self.ctx.execution(node)
        if execution.frequency not in self.frequencies:
            return
        if self._reads_elements_one_by_one(node, receiver, method):
            return
        loop = execution.loop or execution.step_loop()
        if loop is None and execution.framework():
            self._check_batch_hook(node, method, execution)
            return
        if loop is None and called_every_step_elsewhere(execution):
            self._check_training_step_callee(node, method, execution)
            return
        if loop is None and method in ("item", "tolist") and execution.step_method() == "forward" and _returned_as_is(
            self.ctx.path_to(node), self.ctx.enclosing(cst.FunctionDef)
        ):
            self._check_forward_output(node, method)
            return
        if loop is None and method == "item" and self.ctx.serves_device and buffer_read(receiver, self.ctx.values):
            self._check_buffer_read(node, receiver, execution)
            return
        if loop is None or not self.ctx.serves_device:
            return  # a module that never mentions a device may serve a program that picks one
        if _read_back_earlier(node, receiver, loop, module_nodes(self.ctx.module).parents):
            return  # the iteration already waited for this value: it is on the host now
        if self._needed_on_host(node, loop) or self._in_data_code() or self.ctx.inference_only:
            return
        if _reads_a_number(node, method, self.ctx.parent()) and self._iteration_waits_anyway(node, loop):
            return  # predictions handed to NumPy in the same iteration: the loop waits there
        helper = self.ctx.enclosing(cst.FunctionDef) if execution.loop is None else None
        if (helper is not None or self.withholds_preview_variant()) and not repeated_with_training(self.ctx, loop):
            return  # a helper's value may be what another loop exists to produce: no preview variant
        assert isinstance(node.func, cst.Attribute)
        shown = '.to("cpu")' if method == "to" else f".{method}()"
        where = f"in `{helper.name.value}()`, called in a step loop," if isinstance(helper, cst.FunctionDef) else "in a loop"
        self.report(
            node,
            f"`{shown}` {where} synchronises with the device every iteration; "
            "keep the value on the device and convert once after the loop or every N steps",
            fix=self._accumulation_fix(node) if method == "item" else None,
            start=node.func.attr,
        )

    def _check_buffer_read(self, node: cst.Call, receiver: cst.BaseExpression, execution: Execution) -> None:
        """`.item()` of a registered buffer in a trained module's `forward()` (`if
        self.initted.item() == 0:`, `z = self.params[0].item()`): the buffer lives on the
        device with the module, and the read waits for it on every training step."""
        if not in_trained_forward(self.ctx, execution, self.ctx.enclosing(cst.ClassDef), self.ctx.values.module_classes) or self._in_data_code() or self.ctx.inference_only:
            return
        self.report(
            node,
            f"`.item()` of the buffer `{dotted_name(receiver) or dotted_name(_subscripted(receiver))}` in `forward()` synchronises with the device "
            "every step; keep a Python copy of the value, or compute with the tensor on the device",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else None,
        )

    def _reads_elements_one_by_one(self, node: cst.Call, receiver: cst.BaseExpression, method: str) -> bool:
        """Reports (and says so) `.item()`, `.cpu()` or `.tolist()` of each element of a tensor
        in a loop over its elements (`for i in range(len(lengths)): n = lengths[i].item()`,
        `for length in lengths: length.item()`, `for j in range(y.size(0)):
        psnr(x[j].cpu().numpy(), ...)`) inside a loop over training or per-epoch validation
        batches, a function another module's such loop calls, a framework's batch hook
        (Lightning's `validation_step`) or a trained module's `forward()`: one synchronisation
        per element, where one conversion before the loop reads them all, whatever the loop
        then does with the values. Not in a `forward()` of a class that is no torch module the
        project builds, nor one with gradients off (an inference API)."""
        loop = element_loop(receiver, self.ctx.enclosing_loops(node))
        if loop is None or not self.ctx.serves_device or self._in_data_code() or self.ctx.inference_only:
            return False
        tensor = walked_tensor(loop, receiver)
        if tensor is None or self._on_host(tensor):
            return False
        if not walked_every_step(self.ctx, loop, self.ctx.enclosing(cst.ClassDef), self.ctx.values.module_classes):
            return False  # not in a loop over training or validation batches, nor in a trained module's `forward()`
        shown = _shown(method)
        once = "with `.tolist()`" if method == "item" else f"with one `{shown}` of `{dotted_name(tensor)}`"
        self.report(
            node,
            f"`{shown}` of each element of `{dotted_name(tensor)}` synchronises with the device once per element, "
            f"every step; read them all at once {once} before the loop",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else None,
        )
        return True

    def _check_batch_hook(self, node: cst.Call, method: str, execution: Execution) -> None:
        """A sync in a method a training framework calls every batch (Lightning's
        `training_step`, an ignite process function) or in a helper only such a method calls.
        The framework runs it on the accelerator its trainer is given, so the file need not
        mention a device; outside the training hooks, values written out (`.numpy()`,
        `.tolist()` for a file or a metric library) are the hook's purpose."""
        if self._in_data_code() or self.ctx.inference_only:
            return
        if execution.framework() == ENGINE and not self.ctx.serves_device:
            return  # an engine of the program's own runs where the program puts it: the host here
        hook = execution.step_method()
        if hook not in TRAINING_HOOKS and (self._goes_to_host_sink(node, OUTPUT_SINKS) or self._is_dict_key(node)):
            return
        if _in_after_fit_hook(self.ctx.enclosing(cst.FunctionDef), hook) and self.withholds_preview_variant():
            return  # `trainer.test()` after the fit: one pass, the preview variant
        framework = execution.framework()
        shown = '.to("cpu")' if method == "to" else f".{method}()"
        where = hook_place(self.ctx.enclosing(cst.FunctionDef), hook)
        remedy = (
            "pass the tensor to `self.log(...)`, which reduces it on the device, or convert once per epoch"
            if framework == LIGHTNING
            else "keep the value on the device and convert once per epoch or every N steps"
        )
        self.report(
            node,
            f"`{shown}` in {where}, which {framework} runs every batch, synchronises with the device every step; {remedy}",
            start=node.func.attr if isinstance(node.func, cst.Attribute) else None,
        )

    def _check_training_step_callee(self, node: cst.Call, method: str, execution: Execution) -> None:
        """A sync in the body of a function (or method) that another module's training step
        loop calls every iteration (`agent.update_parameters(...)`, `calculate_accuracy(...)`):
        every training step waits for it, unless the value goes to host output (an action
        handed to an environment as a NumPy array, a file)."""
        if not self.ctx.serves_device or self._in_data_code() or self.ctx.inference_only:
            return
        if self._goes_to_host_sink(node, OUTPUT_SINKS) or self._is_dict_key(node):
            return
        if any(reason.environment for reason in execution.reasons):
            return  # an action every call hands to an environment, which takes it on the host
        self._report_at_call(
            node,
            f"`{_shown(method)}` synchronises with the device every training step: {execution.reasons[0].text}; "
            "keep the value on the device and convert once after the loop or every N steps",
        )

    def _check_forward_output(self, node: cst.Call, method: str) -> None:
        """A sync whose value a module's `forward()` returns as it is (`return {"loss": loss,
        "elbo": elbo.item()}`): every training step waits for a number only the caller's
        logging reads. Not in modules the project never builds, data code or inference."""
        klass = self.ctx.enclosing(cst.ClassDef)
        function = self.ctx.enclosing(cst.FunctionDef)
        if not (isinstance(function, cst.FunctionDef) and function.name.value == "forward"):
            return  # a helper `forward()` calls may return what the forward needs (split sizes)
        module = isinstance(klass, cst.ClassDef) and (
            klass.name.value in self.ctx.values.module_classes or framework_of(klass, self.ctx.frequency.classes()) == LIGHTNING
        )
        if not module or without_grad(self.ctx, function):
            return  # not a torch module's, or an inference forward (gradients off): its output is the point
        if not self.ctx.serves_device or self._in_data_code() or self.ctx.inference_only or not runs_with_training_steps(self.ctx, self.ctx.execution(node)):
            return
        if isinstance(klass, cst.ClassDef) and klass.name.value in unbuilt_definitions(self.ctx.path, self.ctx.text):
            return
        if isinstance(klass, cst.ClassDef) and framework_of(klass, self.ctx.frequency.classes()) == LIGHTNING and not _steps_call_forward(klass):
            return  # a LightningModule's `forward` is its inference API unless its training step calls `self(...)`
        self._report_at_call(
            node,
            f"`{_shown(method)}` of a value `forward()` returns synchronises with the device every step; "
            "return the tensor and convert it where it is logged, every N steps",
        )

    def _report_at_call(self, node: cst.Call, message: str) -> None:
        """A finding on the sync call, starting at its method's name."""
        self.report(node, message, start=node.func.attr if isinstance(node.func, cst.Attribute) else None)

    def _on_host(self, receiver: cst.BaseExpression) -> bool:
        """Whether the receiver is known not to be a device tensor."""
        kind = self.ctx.kind_of(receiver)
        if kind in HOST_KINDS or kind is Kind.MODULE:
            return True
        inner = method_call(receiver)
        if inner is not None and (inner[1] == "numpy" or (inner[1] in SYNC_METHODS and _is_sync_call(receiver, inner[1]))):
            return True  # a chain such as `.cpu().numpy()` synchronises once, at its first call
        qualified = self.ctx.qualified_name(receiver.func) if isinstance(receiver, cst.Call) else None
        return qualified is not None and qualified.startswith("numpy.")

    def _moves_a_module(self, node: cst.Call) -> bool:
        parent = self.ctx.parent()
        return isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in MODULE_ACCESSORS

    def _check_helper_of_another_module(self, node: cst.Call) -> None:
        """`misc.all_reduce_mean(loss_value)` in a training step loop, or in a function that
        another module's training step loop calls every iteration (`return loss,
        to_cpu(components)` in a `compute_loss`), where the helper (of another project module)
        reads a value back from the device on every call."""
        looped = bool(self.ctx.enclosing_loops(node))
        if not isinstance(node.func, (cst.Name, cst.Attribute)) or not (looped or self.ctx.enclosing(cst.FunctionDef)):
            return  # cheap tests first: this runs for every call of a file with training code
        head = (dotted_name(node.func) or "").split(".")[0]
        if not head or head in self.ctx.frequency.local_functions():
            return  # a helper of this file: its own sync is reported where it is
        if not (self.ctx.uses_device if looped else self.ctx.serves_device):
            return
        facts = project_function(self.ctx, node.func)
        if facts is None or self.ctx.inference_only:
            return
        if not (facts.reads_back_device_value or (facts.returns_read_back and self._passes_a_tensor(node))):
            return
        if looped:
            loop = self._step_loop(node)
            if loop is None or not repeated_with_training(self.ctx, loop) or self._needed_on_host(node, loop):
                return  # `action = agent.act(state)` handed to `env.step(action)` must reach the host
            where = "every iteration"
        else:
            execution = self.ctx.execution(node)
            if not called_every_step_elsewhere(execution) or self._in_data_code() or self._goes_to_host_sink(node, OUTPUT_SINKS):
                return
            where = f"every training step: {execution.reasons[0].text}"
        self.report(
            node,
            f"`{dotted_name(node.func)}()` reads a value back from the device on every call, which synchronises "
            f"{where}; keep the value on the device and convert once after the loop or every N steps",
        )

    def _passes_a_tensor(self, call: cst.Call) -> bool:
        """Whether the call hands the helper a value that may be a device tensor (a model's
        output, a batch moved there; not a number, an array or a host tensor): in a training
        loop its read-back synchronises."""
        return any(
            isinstance(arg.value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) and self.ctx.kind_of(arg.value) not in HOST_KINDS
            for arg in call.args
        )

    def _step_loop(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The step loop that runs `node` each iteration, unless `node` runs less often (a guard,
        an error path, a function called only at intervals; see `semantics.frequency`)."""
        execution = self.ctx.execution(node)
        return execution.loop if execution.frequency in self.frequencies else None

    def _needed_on_host(self, node: cst.Call, loop: cst.CSTNode) -> bool:
        """Whether the loop cannot go on without the value on the host.

        A loop that trains (see `training.loop_trains`), or one in a function every training
        step of another module calls, gets only those that keep it going: actions for an
        environment, priorities of its replay buffer, the stop test that reads what an
        evaluation helper returns (a value the loop computes itself may serve the stop test of
        its evaluation phase only, while every training batch pays for it).
        """
        names = self._assigned_names(node)
        function = self.ctx.enclosing(cst.FunctionDef)
        steps = environment_steps(loop)
        if function is not None and not any(ancestor is loop for ancestor in self.ctx.ancestors):
            steps += environment_steps(function)  # a helper the loop calls steps the environment itself
        if any(_passes(node, _flows_to(loop, names), step) for step in steps):
            return True  # an environment on the host takes host actions, training or not
        if self._handed_to_environment(node, _flows_to(loop, names), loop):
            return True  # the same, through a same-file helper that steps the environment
        if steps and not any(ancestor is loop for ancestor in self.ctx.ancestors) and not (
            function is not None and self.ctx.frequency.runs_backward(function)
        ):
            # A helper called in the loop may compute the action (`act(state)`); not one whose
            # value the loop binds and never hands to the environment (`loss = update_model()`),
            # nor one that runs a backward pass (the agent's `learn()` is its update, not its act).
            returned = _flows_to(loop, self._returned_names(node, loop))
            if not returned or any(_passes(node, returned, step) for step in steps):
                return True
        if feeds_batch_source(node, names, loop, self.ctx.enclosing(cst.FunctionDef) or self.ctx.module):
            return True  # priorities of a replay buffer: the next batch depends on them
        if function is not None and not any(ancestor is loop for ancestor in self.ctx.ancestors):
            if feeds_batch_source(node, _flows_to(function, names), function, self.ctx.module):
                return True  # the same, in the helper that samples and updates the buffer (`update_model()`)
        returned = self._returned_names(node, loop)
        if returned and decides_stop(loop, returned):
            return True  # early stopping on what an evaluation helper returns: the stop test reads it
        if loop_trains(self.ctx, loop) or called_every_training_step(self.ctx.execution(loop)):
            return False
        if called_every_step_elsewhere(self.ctx.execution(loop)):
            # A loop of a helper that another module's evaluation pass calls for every batch
            # (metrics per `k`): only what goes to host output needs the host, as for a sync
            # outside loops in such a helper.
            return self._goes_to_host_sink(node, OUTPUT_SINKS) or self._is_dict_key(node)
        if decides_stop(loop, names, node) or (self.ctx.enclosing(cst.Assert) is not None and not repeated_with_training(self.ctx, loop)):
            return True  # an `assert` of a generation or inference loop raises without the value
        loop_nodes = list(descendants(loop))
        if any(_calls(item, "input") for item in loop_nodes):
            return True
        if self._dropped_unread(node, names) or accumulated(self.ctx.path_to(node)):
            return False  # a host copy nothing reads, or a running total, is no output
        # Inference, generation and evaluation loops whose purpose is host output: files,
        # text, NumPy metrics, Python iteration over the values, keys of a dict (an image id
        # for an evaluator: a tensor key hashes by identity).
        if self._goes_to_host_sink(node, OUTPUT_SINKS) or self._is_dict_key(node):
            return True
        if _iterates_loader(loop):
            return False
        # Not over a data loader: sampling or decoding loops that hand each result to the
        # host, or feed the value into the next iteration (autoregressive decoding).
        return self._goes_to_host_sink(node, HOST_SINKS) or _read_again(names, loop_nodes)

    def _handed_to_environment(self, node: cst.Call, names: Set[str], loop: cst.CSTNode) -> bool:
        """Whether the loop hands the value to a same-file function that passes the parameter it
        arrives in to its environment's step (`observe_env(obs, action.item())` around
        `env.step(action)`, repeated per skipped frame)."""
        functions = self.ctx.frequency.local_functions()
        for call in body_nodes(loop):
            if not isinstance(call, cst.Call) or not _passes(node, names, call):
                continue
            for function in called_function(call, functions):
                handed = {parameter for arg, parameter in arguments_by_parameter(call, function) if _carries(arg, node, names)}
                if any(_passes(node, handed, step) for step in environment_steps(function)):
                    return True
        return False

    def _iteration_waits_anyway(self, node: cst.Call, loop: cst.CSTNode) -> bool:
        """Whether every iteration that runs `node` (a number's read-back, see
        `_reads_a_number`), in a loop that does not train, also reads
        back a device value straight into host output (`preds.append(out.cpu().numpy())`,
        `np.argmax(logits.cpu())`, see `_into_host_output`) in a simple statement of a block
        that holds `node`. The iteration waits for the device there in any case, before or
        after `node`, which then adds no wait of its own."""
        if not any(ancestor is loop for ancestor in self.ctx.ancestors):
            return False  # in a helper the loop calls: its blocks are not the loop's
        parents = module_nodes(self.ctx.module).parents
        key = id(loop)
        if key not in self.waiting_blocks:
            trains = loop_trains(self.ctx, loop) or called_every_training_step(self.ctx.execution(loop))
            self.waiting_blocks[key] = frozenset() if trains else frozenset(
                block for item in body_nodes(loop) if item is not loop and self._into_host_output(item, parents)
                for block in [_statement_block(item, parents)] if block is not None
            )
        blocks = self.waiting_blocks[key]
        current = parents.get(id(node))
        while blocks and current is not None and current is not loop:
            if id(current) in blocks:
                return True
            current = parents.get(id(current))
        return False

    def _into_host_output(self, item: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> bool:
        """Whether `item` reads a device value back and hands it straight to host output: a
        call of `OUTPUT_SINKS` (`.numpy()`, `.tolist()`, a write) or of NumPy on it, through
        attributes, subscripts and arguments only."""
        found = method_call(item) if isinstance(item, cst.Call) else None
        if found is None or found[1] not in SYNC_METHODS or not _is_sync_call(item, found[1]) or self._on_host(found[0]):
            return False
        current = parents.get(id(item))
        while isinstance(current, (cst.Attribute, cst.Arg, cst.Subscript, cst.SubscriptElement, cst.Index, cst.Call)):
            if isinstance(current, cst.Call) and current is not item:
                callee = current.func.attr.value if isinstance(current.func, cst.Attribute) else getattr(current.func, "value", "")
                if callee in OUTPUT_SINKS or (self.ctx.names.qualified_name(current.func) or "").startswith("numpy."):
                    return True
            current = parents.get(id(current))
        return False

    def _assigned_names(self, node: cst.Call) -> Set[str]:
        """Names assigned the value of `node`, or of a method chain on it (`a = x.cpu().numpy()`),
        also unpacked (`a, logprob = agent.select_action(s)`)."""
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, cst.Assign) and ancestor.value is child:
                return {name for target in ancestor.targets for name in bound_names(target.target)}
            if not (isinstance(ancestor, cst.Attribute) and ancestor.value is child) and not (
                isinstance(ancestor, cst.Call) and ancestor.func is child
            ):
                return set()
        return set()

    def _dropped_unread(self, node: cst.Call, names: Set[str]) -> bool:
        """Whether the value `node` makes is bound to `names` and dropped unread (see
        `escapes.dropped_unread`), judged in the block of the assignment."""
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, cst.IndentedBlock):
                return dropped_unread(names, child, ancestor)
        return False

    def _returned_names(self, node: cst.Call, loop: cst.CSTNode) -> Set[str]:
        """The names the loop binds to `node`'s value when `node` is returned by a helper the
        loop calls (`loss_val, acc_val = validate()`); empty otherwise."""
        reasons = self.ctx.execution(node).reasons
        if len(reasons) < 2 or not isinstance(reasons[0].at, cst.Call) or reasons[1].at is not loop:
            return set()
        binding = self.ctx.frequency.parent(reasons[0].at)
        if isinstance(binding, cst.Arg):
            binding = self.ctx.frequency.parent(binding)  # `loss_values.append(train(epoch))`
        function = self.ctx.enclosing(cst.FunctionDef)
        return returned_to(self.ctx.path_to(node), binding, function if isinstance(function, cst.FunctionDef) else None)

    def _goes_to_host_sink(self, node: cst.Call, sinks: FrozenSet[str]) -> bool:
        """`results.append(x.cpu())`, `print(x.item())`, `x.cpu().numpy()`, `np.mean(x.cpu())`,
        `for i in x.tolist():` and similar, through other host calls, or a name the value is
        bound to that the function walks element by element (`escapes.walked_in_python`)."""
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, (cst.For, cst.CompFor)) and child is ancestor.iter:
                return True
            if isinstance(ancestor, cst.Assign) and child is ancestor.value:
                # `scores = pred["scores"].tolist()`, then `scores[k]` for each detection
                names = {name for target in ancestor.targets for name in bound_names(target.target)}
                scope = self.ctx.enclosing(cst.FunctionDef) or self.ctx.module
                return walked_in_python(self.ctx.module, names, scope) or self._converted_later(node, names, sinks)
            if isinstance(ancestor, cst.Call):
                callee = ancestor.func.attr.value if isinstance(ancestor.func, cst.Attribute) else getattr(ancestor.func, "value", "")
                if callee in sinks or (self.ctx.qualified_name(ancestor.func) or "").startswith("numpy."):
                    return True
            elif not isinstance(ancestor, (cst.Arg, cst.Attribute, cst.Subscript, cst.SubscriptElement, cst.Index)):
                return False
        return False

    def _converted_later(self, node: cst.Call, names: Set[str], sinks: FrozenSet[str]) -> bool:
        """Whether the innermost loop (or function) around `node` converts a name bound to its
        value for host output (`scores = scores.cpu()`, then `scores.numpy()`), also through
        what torch computes from it on the host (`torch.flatten(pred_cpu).detach().numpy()`)."""
        loops = self.ctx.enclosing_loops(node)
        region = loops[0] if loops else self.ctx.enclosing(cst.FunctionDef)
        return region is not None and any(
            isinstance(call.func, cst.Attribute) and call.func.attr.value in sinks
            and any(isinstance(item, cst.Name) and item.value in names for item in _receiver_chain(call.func.value))
            for call in descendants_of_type(self.ctx.module, region, cst.Call)
        )

    def _is_dict_key(self, node: cst.Call) -> bool:
        """`{x.item(): v}`, `{t["id"].item(): r for t, r in zip(targets, results)}`, also through
        a conversion such as `int(x.item())`."""
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, (cst.DictElement, cst.DictComp)):
                return child is ancestor.key
            if not isinstance(ancestor, (cst.Arg, cst.Call)):
                return False
        return False

    def _in_data_code(self) -> bool:
        """`Dataset` subclasses, `__getitem__` and collate functions run in loader workers, on the host."""
        for ancestor in self.ctx.ancestors:
            if isinstance(ancestor, cst.ClassDef) and any(self.ctx.qualified_name(base.value) in DATASET_BASES for base in ancestor.bases):
                return True
            if isinstance(ancestor, cst.FunctionDef) and ancestor.name.value.startswith(DATA_FUNCTIONS):
                return True
        return False

    def _accumulation_fix(self, node: cst.Call) -> Optional[PendingFix]:
        """`total += x.item()` -> `total += x.detach()` (`.detach().double()` for float
        values), converted once after the loop."""
        accumulator = self._accumulator(node)
        loops = self.ctx.enclosing_loops(node)
        loop = loops[0] if loops else None
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
        if receiver is None or self.ctx.kind_of(receiver) not in MAYBE_DEVICE_KINDS:
            return None  # only a value known to be a tensor can be accumulated with `.detach()`
        if any(is_step_loop(outer) for outer in loops[1:]):
            return None  # the conversion would itself run once per step of the outer loop
        if accumulator is None or not isinstance(loop, (cst.For, cst.While)) or loop.orelse:
            return None
        if self._inside_try(loop):
            return None
        if self.ctx.kind_of(cst.Name(accumulator)) is not Kind.NUMBER or not _only_accumulates(loop, accumulator):
            return None
        scope = self.ctx.enclosing(cst.FunctionDef) or self.ctx.module
        if _reads_names_dynamically(self.ctx.module):
            return self.withheld(f"the file reads names by their text (`globals()`, `eval`, `exec`), which may see `{accumulator}` as a tensor during the loop")
        if _read_by_nested_code(scope, accumulator):
            return self.withheld(f"a function or lambda here reads `{accumulator}`, which would be a tensor during the loop")
        if scope is not self.ctx.module and _declared_outer(scope, accumulator) and _read_elsewhere(self.ctx.module, accumulator, scope):
            return self.withheld(
                f"`{accumulator}` is `global` or `nonlocal` here, and other functions of the file (a method, a generator, a closure) read it, which would see a tensor during the loop"
            )
        binding = module_name(self.ctx.module, "torch", loop)
        if binding is None or binding[1]:
            return None
        block = next((a for a, child in zip(self.ctx.ancestors, self.ctx.ancestors[1:]) if child is loop), None)
        cast = _accumulating_cast(_starting_value(block, loop, accumulator), receiver, loop)
        if cast is None:
            return self.withheld("the values may be integers or floats; the sum's type would not be known")
        if cast and MPS.search(self.ctx.text):
            return self.withheld("float64, used for an exact sum, is not available on MPS")
        if cast and program_makes_complex(self.ctx):
            return self.withheld("the program makes complex values: `.double()` would drop the imaginary part of a complex sum")
        placement = self._after(loop)
        if placement is None:
            return None
        anchor, indent, before = placement
        torch_name = binding[0]
        conversion = f"{accumulator} = {accumulator}.item() if {torch_name}.is_tensor({accumulator}) else {accumulator}"
        assert isinstance(node.func, cst.Attribute)
        detach: cst.BaseExpression = node.with_changes(func=node.func.with_changes(attr=cst.Name("detach")))
        if cast:
            detach = cst.Call(cst.Attribute(detach, cst.Name(cast)))
        insert = (
            NodeEdit(anchor, f"{conversion}\n{indent}", insert_before=True)
            if before
            else NodeEdit(anchor, f"\n{indent}{conversion}", insert_after=True)
        )
        return self.fix(NodeEdit(node, detach), insert, message="Accumulate on the device; convert once after the loop")

    def _inside_try(self, loop: cst.CSTNode) -> bool:
        """An exception could skip a conversion placed after a loop inside `try`."""
        for ancestor, _child in self.ctx.path_to(loop):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(ancestor, (cst.Try, cst.TryStar)):
                return True
        return False

    def _accumulator(self, node: cst.Call) -> Optional[str]:
        parent = self.ctx.parent()
        if (
            isinstance(parent, cst.AugAssign)
            and parent.value is node
            and isinstance(parent.operator, cst.AddAssign)
            and isinstance(parent.target, cst.Name)
        ):
            return parent.target.value
        return None

    def _after(self, loop: cst.CSTNode) -> Optional[Tuple[cst.CSTNode, str, bool]]:
        """Where the conversion goes: before the statement after `loop`, or after `loop` itself."""
        index = next((i for i, a in enumerate(self.ctx.ancestors) if a is loop), None)
        if index is None or index == 0:
            return None
        block = self.ctx.ancestors[index - 1]
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)):
            return None
        indent = indentation(self.ctx.module, self.ctx.ancestors[:index])
        position = next(i for i, statement in enumerate(body) if statement is loop)
        if position + 1 < len(body):
            return body[position + 1], indent, True
        return loop, indent, False

def _in_after_fit_hook(function: Optional[cst.CSTNode], hook: str) -> bool:
    """Whether the code is in the body of a hook of `trainer.test()` or `predict()` itself (a
    helper may be shared with the training step: it keeps the training step's frequency)."""
    return hook in AFTER_FIT_HOOKS and isinstance(function, cst.FunctionDef) and function.name.value == hook


def hook_place(function: Optional[cst.FunctionDef], hook: str) -> str:
    """Where a sync in a framework's batch hook is, in words: the hook itself or a helper of it."""
    return f"`{hook}()`" if function is not None and function.name.value == hook else f"a helper of `{hook}()`"


def _is_sync_call(node: cst.CSTNode, method: str) -> bool:
    """`.item()`, `.cpu()`, `.tolist()` without arguments, or `.to("cpu")`."""
    assert isinstance(node, cst.Call)
    if method == "to":
        return len(node.args) >= 1 and (string_value(node.args[0].value) or "").startswith("cpu")
    return not node.args


def _subscripted(value: cst.BaseExpression) -> cst.BaseExpression:
    return value.value if isinstance(value, cst.Subscript) else value


def buffer_read(receiver: cst.BaseExpression, values: ValueInference) -> bool:
    """`self.name` or `self.name[...]` of a buffer the file registers (`self.register_buffer("name",
    ...)`) and never rebinds: it lives on the device with its module."""
    base = _subscripted(receiver)
    return (
        isinstance(base, cst.Attribute) and dotted_name(base.value) == "self"
        and base.attr.value in values.buffers and not values.attribute_assignments.get(base.attr.value)
    )


def _reads_a_number(node: cst.Call, method: str, parent: Optional[cst.CSTNode]) -> bool:
    """`x.item()` or `x.cpu().item()`: a read-back of one number, whose copy costs nothing
    beside its wait (a tensor's `.cpu()` copies its whole size)."""
    return method == "item" or (isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == "item")


def _shown(method: str) -> str:
    """How a message names the sync: `.item()`, `.to("cpu")`."""
    return '.to("cpu")' if method == "to" else f".{method}()"


def _steps_call_forward(klass: cst.ClassDef) -> bool:
    """Whether a training hook of the class calls the module itself (`self(x)` in
    `training_step`), which runs its `forward()`."""
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "self"
        for method in klass.body.body
        if isinstance(method, cst.FunctionDef) and method.name.value in TRAINING_HOOKS
        for node in descendants(method)
    )


def _returned_as_is(path: Iterator[Tuple[cst.CSTNode, cst.CSTNode]], function: Optional[cst.CSTNode]) -> bool:
    """Whether the node at the end of `path` is what a `return` statement returns, alone or as
    an element of a tuple, list or dict display (`return loss, acc.item()`), also through a
    name bound to that display which a `return` of `function` hands back as it is and
    nothing else in `function` reads (`loss_item = {"loss": loss.item()}`, then `return
    loss, loss_item`; not `lengths = x.tolist()`, which the function itself may use)."""
    in_display = False
    for ancestor, child in path:
        if isinstance(ancestor, cst.Return):
            return True
        if isinstance(ancestor, cst.Assign) and child is ancestor.value and in_display and isinstance(function, cst.FunctionDef):
            names = {target.target.value for target in ancestor.targets if isinstance(target.target, cst.Name)}
            mentions = sum(1 for node in descendants(function) if isinstance(node, cst.Name) and node.value in names)
            return mentions == 2 and returns_one_of(function, names)  # bound, then returned: nothing else reads it
        if not isinstance(ancestor, (cst.Tuple, cst.List, cst.Dict, cst.Element, cst.DictElement)):
            return False
        in_display = True
    return False


def _read_back_earlier(node: cst.Call, receiver: cst.BaseExpression, loop: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> bool:
    """Whether the loop reads the same value back for its environment before `node`, every
    time `node` runs (`env.step(action.item())`, then `memory.push(state, action.item())`): in
    a simple statement of a block that holds `node` (not in a branch of its own), with no
    rebinding in between. That read is needed, and the iteration already waited for it."""
    name = dotted_name(receiver)
    steps = environment_steps(loop)
    if name is None or not steps:
        return False
    handed = {id(item) for step in steps for arg in step.args for item in descendants(arg)}
    blocks = set()
    current = parents.get(id(node))
    while current is not None and current is not loop:
        if isinstance(current, cst.IndentedBlock):
            blocks.add(id(current))
        current = parents.get(id(current))
    earlier = False
    for item in in_source_order(loop):
        if item is node:
            return earlier
        if isinstance(item, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and name in _assigned_dotted(item):
            earlier = False
        found = method_call(item) if isinstance(item, cst.Call) else None
        if found is not None and id(item) in handed and _is_sync_call(item, found[1]) and dotted_name(found[0]) == name:
            earlier = earlier or _statement_block(item, parents) in blocks
    return False


def _statement_block(node: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> Optional[int]:
    """The id of the block whose simple statement holds `node` (None inside a compound
    statement's header or a nested scope)."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement, cst.Lambda)):
        current = parents.get(id(current))
    block = parents.get(id(current)) if isinstance(current, cst.SimpleStatementLine) else None
    return id(block) if isinstance(block, cst.IndentedBlock) else None


def _assigned_dotted(assign: cst.CSTNode) -> Set[str]:
    targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else [assign.target]  # type: ignore[attr-defined]
    return {dotted_name(item) or "" for target in targets for item in descendants(target)}


def _flows_to(loop: cst.CSTNode, names: Set[str]) -> Set[str]:
    """`names` and the names the loop binds to values computed from them (`q = agent.q(state)`
    then `action = q.argmax()`), transitively."""
    found = set(names)
    assignments = [node for node in descendants(loop) if isinstance(node, cst.Assign)] if names else []
    changed = True
    while changed:
        changed = False
        for assign in assignments:
            if any(isinstance(item, cst.Name) and item.value in found for item in descendants(assign.value)):
                bound = {name for target in assign.targets for name in bound_names(target.target)} - found
                if bound:
                    found |= bound
                    changed = True
    return found


def _passes(node: cst.CSTNode, names: Set[str], call: cst.Call) -> bool:
    """Whether `call` takes `node`'s value as an argument, itself or by one of `names`."""
    return any(_carries(arg, node, names) for arg in call.args)


def _carries(expression: cst.CSTNode, node: cst.CSTNode, names: Set[str]) -> bool:
    """Whether `expression` holds `node`'s value, itself or by one of `names`."""
    return any(item is node or (isinstance(item, cst.Name) and item.value in names) for item in descendants(expression))


def _read_again(names: Set[str], loop_nodes: List[cst.CSTNode]) -> bool:
    """Whether a name assigned from the synchronising call is read elsewhere in the loop."""
    mentions = sum(1 for item in loop_nodes if isinstance(item, cst.Name) and item.value in names)
    return bool(names) and mentions > len(names)


def _calls(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name


def _iterates_loader(loop: cst.CSTNode) -> bool:
    """A `for` loop over something that is not a plain counter (`range(...)`): a loader or dataset."""
    iterated = iterated_of(loop)
    if iterated is None:
        return False
    iterated = iterated_source(iterated) if iterated is not None else None
    return not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "range")


def _read_by_nested_code(scope: cst.CSTNode, name: str, skip: Optional[cst.CSTNode] = None) -> bool:
    """Whether a function or lambda defined in `scope` (other than `skip`, the function that
    holds the loop) mentions `name`: called inside the loop, it would see the accumulator as
    a tensor."""
    for node in descendants(scope):
        if node is not scope and node is not skip and isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if any(isinstance(item, cst.Name) and item.value == name for item in descendants(node)):
                return True
    return False


def _declared_outer(function: cst.CSTNode, name: str) -> bool:
    """Whether `function` declares `name` `global` or `nonlocal` (not in its nested functions):
    the accumulator is then a variable of the module or of an enclosing function, which
    functions defined anywhere there may read while the loop runs."""
    return any(
        isinstance(node, (cst.Global, cst.Nonlocal)) and any(item.name.value == name for item in node.names)
        for node in scope_descendants(function.body)
    )


@per_module
def _reads_names_dynamically(module: cst.Module) -> bool:
    """Whether the file looks module-level names up by their text: `globals()`, `eval` or
    `exec` (a logger reading `globals()[name]`); `locals()` of the loop's own scope is read
    where it stands, as a plain mention is."""
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("globals", "eval", "exec")
        for node in nodes_of_type(module, (cst.Call,))
    )


def _read_elsewhere(module: cst.Module, name: str, skip: cst.CSTNode) -> bool:
    """Whether a function or lambda of the file other than `skip` (and the functions nested in
    it, checked on their own) mentions `name` without binding it as its own local variable."""
    inside = {id(node) for node in descendants(skip)}
    for node in descendants(module):
        if node is skip or id(node) in inside or not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            continue
        if not any(isinstance(item, cst.Name) and item.value == name for item in descendants(node)):
            continue
        local = isinstance(node, cst.FunctionDef) and not _declared_outer(node, name) and any(
            name in bound_names(target)
            for item in scope_descendants(node.body)
            for target in ([t.target for t in item.targets] if isinstance(item, cst.Assign) else [])
        )
        if not local:
            return True
    return False


def _starting_value(block: cst.CSTNode, loop: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """The value of the last plain `name = ...` statement before `loop` in its block."""
    value = None
    for statement in getattr(block, "body", ()):
        if statement is loop:
            return value
        for small in getattr(statement, "body", ()) if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets):
                value = small.value
    return None


# Reductions whose result is an integer tensor when their input is a comparison.
COUNTING = frozenset({"sum", "count_nonzero"})
COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "isin", "logical_and", "logical_or", "logical_not"})
# Methods whose result is a floating tensor.
FLOATING = frozenset({"mean", "float", "double", "half", "bfloat16", "std", "var", "norm"})


def _accumulating_cast(start: Optional[cst.BaseExpression], value: cst.BaseExpression, loop: Optional[cst.CSTNode] = None) -> Optional[str]:
    """How to accumulate `value` so that the sum equals the Python one: "double" (float64
    adds exactly what Python floats add), "" (an int64 count), or None when unknown. A name
    such as `loss` is taken as a float unless the loop binds it to an integer value (`loss =
    (out.argmax(1) != y).sum()`, a count of errors), whose sum from an int start is an int."""
    if isinstance(start, cst.Float):
        return "double"
    if not isinstance(start, cst.Integer):
        return None
    found = method_call(value)
    if found is not None and found[1] in COUNTING and _counts_comparison(found[0]):
        return ""
    if found is not None and found[1] in FLOATING:
        return "double"
    named = dotted_name(value if found is None else found[0]) or ""
    if "loss" not in named.rsplit(".", 1)[-1].lower():
        return None
    if loop is not None and isinstance(value if found is None else found[0], cst.Name):
        name = dotted_name(value if found is None else found[0])
        for node in descendants(loop):
            if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets) and _integral(node.value):
                return None
    return "double"


# Methods whose result is an integer or boolean tensor.
INTEGRAL = frozenset({"long", "int", "short", "byte", "bool", "argmax", "argmin", "count_nonzero"})


def _counts_comparison(inner: cst.BaseExpression) -> bool:
    inner_call = method_call(inner)
    return isinstance(inner, cst.Comparison) or (inner_call is not None and inner_call[1] in COMPARISONS)


def _integral(value: cst.BaseExpression) -> bool:
    """A value known to be an integer or boolean tensor: a comparison, a count of one, or an
    integer conversion."""
    if _counts_comparison(value):
        return True
    found = method_call(value)
    return found is not None and (found[1] in INTEGRAL or (found[1] in COUNTING and _counts_comparison(found[0])))


def _only_accumulates(loop: cst.CSTNode, name: str) -> bool:
    """The loop mentions `name` once (the accumulation) and cannot leave before its end."""
    mentions = 0
    for node in descendants(loop):
        if isinstance(node, (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)):
            return False
        if isinstance(node, cst.Name) and node.value == name:
            mentions += 1
    return mentions == 1
