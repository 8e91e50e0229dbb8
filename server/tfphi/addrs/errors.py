"""The error every address parser raises."""


class AddressError(ValueError):
    """Text that is not an address of the kind asked for; the message says what is wrong."""
