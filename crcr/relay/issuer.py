"""The emulator's own OIDC issuer: an RSA key, its JWKS, minting and verification.

Verification answers as the relay does: the Authorization value may carry
a `Bearer ` prefix in any case (or none); the issuer is read unverified
first (GitHub and Buildkite are known, anything else is "Unsupported");
then RS256 against the issuer's JWKS with issuer and audience checked (exp
and iat only when present, PyJWT's defaults); the `repository` claim is the
verified repo. Buildkite tokens cannot verify here (no Buildkite JWKS), so
they fail as an invalid token would.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Optional

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
BUILDKITE_ISSUER = "https://agent.buildkite.com"
AUDIENCE = "pytorch-cross-repo-ci-relay"


class AuthFailed(Exception):
    """401, with the relay's detail text."""


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def bearer_value(header: Optional[str]) -> str:
    token = (header or "").strip() if header else ""
    if not token:
        raise AuthFailed("Missing authorization token")
    return token[7:].strip() if token.lower().startswith("bearer ") else token


def unverified_issuer(token: str) -> Optional[str]:
    try:
        return jwt.decode(token, options={"verify_signature": False, "verify_aud": False}).get("iss")
    except Exception:  # noqa: BLE001 - any undecodable token has no issuer
        return None


@dataclass
class Issuer:
    issuer: str = GITHUB_ISSUER
    audience: str = AUDIENCE
    key: Optional[rsa.RSAPrivateKey] = None
    kid: str = ""

    def __post_init__(self) -> None:
        self.key = self.key or new_key()
        self.kid = self.kid or uuid.uuid4().hex[:16]
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update(kid=self.kid, alg="RS256", use="sig")
        self.jwks = {"keys": [jwk]}
        self._keyset = jwt.PyJWKSet.from_dict(self.jwks)

    def mint(
        self,
        repository: Optional[str],
        *,
        audience: Optional[str] = None,
        issuer: Optional[str] = None,
        key: Optional[rsa.RSAPrivateKey] = None,
        lifetime: float = 300.0,
        ref: str = "refs/heads/main",
    ) -> str:
        """A token shaped like GitHub's (the overrides exist to build bad ones in tests)."""
        now = int(time.time())
        claims = {
            "iss": issuer or self.issuer,
            "aud": audience or self.audience,
            "sub": f"repo:{repository}:ref:{ref}",
            "ref": ref,
            "iat": now,
            "nbf": now - 5,
            "exp": int(now + lifetime),
            "jti": uuid.uuid4().hex,
        }
        if repository is not None:
            claims.update(repository=repository, repository_owner=repository.split("/")[0])
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def verify_header(self, header: Optional[str]) -> str:
        """The verified repository for an Authorization header value, or AuthFailed."""
        token = bearer_value(header)
        issuer = unverified_issuer(token)
        if issuer not in (GITHUB_ISSUER, BUILDKITE_ISSUER):
            raise AuthFailed(f"Unsupported OIDC issuer: {issuer}")
        if issuer != self.issuer:
            raise AuthFailed("Invalid authorization token")
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            signing = next((k for k in self._keyset.keys if k.key_id == kid), None)
            if signing is None:
                raise AuthFailed("Invalid authorization token")
            claims = jwt.decode(
                token, signing.key, algorithms=["RS256"], audience=self.audience, issuer=issuer
            )
        except jwt.PyJWTError:
            raise AuthFailed("Invalid authorization token") from None
        repo = claims.get("repository")
        if not repo:
            raise AuthFailed("GitHub OIDC token missing 'repository' claim")
        return repo

    def verify(self, token: str) -> str:
        return self.verify_header(f"Bearer {token}")
