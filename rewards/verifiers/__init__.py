"""Published answer verifiers as rewards: each is a declared :class:`~rewards.verifiers.protocol.VerifierProtocol`
(how the released code renders its prompt, how it reads the verdict, how much it may write), run by one reward
class on any generation backend. Adding a verifier is one module here and one registration in :mod:`rewards`."""
