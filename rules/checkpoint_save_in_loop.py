
import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.frequency import Execution, Frequency
from torchlint.semantics.training import trains

# Calls that serialise tensors to a file, however imported.
SAVES = frozenset(
    {
        "torch.save",
        "torch.serialization.save",
        "safetensors.torch.save_file",
        "safetensors.torch.save_model",
    }
)


class CheckpointSaveInLoop(Rule):
    """## What it does
    Flags `torch.save(...)` (and safetensors' `save_file`/`save_model`), however imported,
    that runs on every step of a training loop: in the body of a loop that runs a backward
    pass and an optimizer step, or in a same-file function called from there, with no
    interval guard around it.

    ## Why is this slow?
    Saving copies every tensor it writes from the device to the host, which waits for all
    queued GPU work to finish, then pickles the data and writes it to disk; the training
    loop is stalled for all of it. A checkpoint is as large as the model (and twice or three
    times that with the optimizer state). On the machine this rule was measured on, writing
    a 100 MB `state_dict` took 65-200 ms even into the page cache, more than a whole step of
    many models, so a save every step can halve throughput or worse; on a network file
    system it is slower still. A checkpoint every few hundred or thousand steps loses at
    most that much work after a crash.

    To stay precise the rule is silent:
    - when the save runs less often than every step: in a loop over epochs, once after
      training, in an `except` handler, or behind a guard: an interval
      (`if step % save_every == 0`), a single step (`if step == 0`,
      `if i == len(loader) - 1`), an improvement on the best value so far
      (`if val_loss < best_loss:`, `if is_best:`), or a switch naming saving, logging or
      debugging (`if args.save_ckpt:`); a function called only from such places is rare too;
    - in loops that do not train (no backward pass and optimizer step in each iteration):
      inference and feature-extraction loops that save one output per batch, and
      preprocessing loops that save one file per input, write what they exist to produce;
    - in `forward()` and other code not reached from a training loop in the same file;
    - for methods of other libraries (`model.save_pretrained(...)`,
      `trainer.save_checkpoint(...)`): what the receiver is cannot be known without running
      the code (a tokenizer's `save_pretrained` writes a few kilobytes), and look-alikes
      (`np.save`, a user function named `save`);
    - in test code.

    ## Example
    ```python
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch.save(model.state_dict(), "checkpoint.pt")
    ```

    ## Use instead
    ```python
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 1000 == 0:
            torch.save(model.state_dict(), "checkpoint.pt")
    torch.save(model.state_dict(), "checkpoint.pt")
    ```
    For large models, `torch.distributed.checkpoint.async_save` writes from a background
    thread once the tensors are copied.

    ## Fix applicability
    None: how often to save trades training time against the work lost after a crash, which
    only the author can decide.

    ## Measured precision
    preview; no finding on either half of the real-code benchmark (dev or held out), so no
    precision can be measured yet: the rule needs at least 10 held-out findings to leave
    preview. Its tests hold its hard negatives. See docs/precision.md.
    """

    code = "TL109"
    name = "checkpoint-save-in-loop"
    preview = True  # new in Wave 3; leaves preview when measured at 0.90 held out
    impact = "high"
    summary = "`torch.save(...)` on every training step, with no interval guard"
    triggers = ("save",)
    bad_examples = (
        "import torch\nfor x, y in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    optimizer.step()\n"
        "    torch.save(model.state_dict(), 'last.pt')\n",
        "from torch import save\nfor x, y in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    optimizer.step()\n"
        "    save({'model': model.state_dict()}, 'last.pt')\n",
    )
    good_examples = (
        "import torch\nfor step, (x, y) in enumerate(loader):\n    loss = model(x.cuda())\n    loss.backward()\n"
        "    optimizer.step()\n    if step % 1000 == 0:\n        torch.save(model.state_dict(), 'last.pt')\n",
        "import torch\nfor epoch in range(epochs):\n    train_one_epoch(model, loader)\n    torch.save(model.state_dict(), 'last.pt')\n",
        "import torch\nfor i, x in enumerate(loader):\n    torch.save(model(x.cuda()), f'features_{i}.pt')\n",
        "import torch\nimport numpy as np\nfor x, y in loader:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"
        "    np.save('last.npy', loss.detach().numpy())\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if qualified not in SAVES:
            return
        execution = self.ctx.execution(node)
        if not self._every_training_step(execution):
            return
        where = "; ".join(reason.text for reason in execution.reasons)
        self.report(
            node,
            f"`{qualified}()` runs on every training step ({where}): each save copies "
            "the tensors to the host, waiting for the GPU, and writes them to disk while training stalls; "
            "save every N steps (`if step % save_every == 0:`), once per epoch, or after training",
        )

    def _every_training_step(self, execution: Execution) -> bool:
        """Whether the code runs on every iteration of a loop that trains."""
        loop = execution.step_loop()
        return (
            execution.frequency is Frequency.PER_STEP
            and loop is not None
            and trains(loop, self.ctx.frequency.local_functions())
        )
