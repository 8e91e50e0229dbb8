"""The two ways evaluating a Terraform expression can fail in tfphi."""

from __future__ import annotations


class TfEvalError(Exception):
    """A Terraform evaluation error (type mismatch, bad argument, ...): the value does not exist.

    Only this exception means "Terraform rejects this". A Python error (TypeError, KeyError,
    ValueError, ...) raised while evaluating is a bug in tfphi and must never be read as one.
    """


class TfUnrepresentable(OverflowError):
    """Terraform evaluates this without error, but tfphi cannot hold the result: an infinite
    number, or a value Terraform itself leaves unknown until apply (``format("%v", null)``).
    Not a TfEvalError: the answer is Unbounded, never "Terraform rejects this". (An
    OverflowError so that the tracer's combine, which answers Unbounded for overflows, already
    does the right thing with it.)"""
