"""The emulator's own OIDC issuer: an RSA key, its JWKS, minting and verification.

Verification follows the relay: RS256 against the JWKS, issuer and audience
checked, `repository` claim becomes the verified repo.
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
AUDIENCE = "pytorch-cross-repo-ci-relay"


class AuthFailed(Exception):
    pass


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


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

    def mint(self, repository: str, *, audience: Optional[str] = None, issuer: Optional[str] = None,
             key: Optional[rsa.RSAPrivateKey] = None, lifetime: float = 300.0, ref: str = "refs/heads/main") -> str:
        """A token shaped like GitHub's (the overrides exist to build bad ones in tests)."""
        now = int(time.time())
        claims = {"iss": issuer or self.issuer, "aud": audience or self.audience,
                  "sub": f"repo:{repository}:ref:{ref}", "repository": repository,
                  "repository_owner": repository.split("/")[0], "ref": ref,
                  "iat": now, "nbf": now - 5, "exp": int(now + lifetime), "jti": uuid.uuid4().hex}
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def verify(self, token: str) -> str:
        """The verified repository, or AuthFailed with the reason."""
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            signing = next((k for k in self._keyset.keys if k.key_id == kid), None)
            if signing is None:
                raise AuthFailed("unknown signing key")
            claims = jwt.decode(token, signing.key, algorithms=["RS256"], audience=self.audience,
                                issuer=self.issuer, options={"require": ["exp", "iat", "iss", "aud"]})
        except jwt.InvalidAudienceError:
            raise AuthFailed("wrong audience") from None
        except jwt.InvalidIssuerError:
            raise AuthFailed("untrusted issuer") from None
        except jwt.InvalidSignatureError:
            raise AuthFailed("bad signature") from None
        except jwt.PyJWTError as err:
            raise AuthFailed(f"invalid token: {type(err).__name__}") from None
        repo = claims.get("repository")
        if not isinstance(repo, str) or not repo:
            raise AuthFailed("token has no repository claim")
        return repo
