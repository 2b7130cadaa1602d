/**
 * A software WebAuthn authenticator for tests: what a browser and a platform authenticator
 * together hand to a relying party, built with node:crypto. ES256 keys, "none" attestation,
 * a signature counter that goes up by one per assertion, and the CBOR it needs (unsigned and
 * negative integers, byte and text strings, maps) encoded by hand in shortest form.
 *
 * Every ceremony takes `tweaks` so a test can lie the way an attacker or a broken client
 * would: another origin or RP id, another client data type, a spoiled signature, cleared
 * flags, a counter of its choosing.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

// ---- CBOR (RFC 8949), just enough for attestation objects and COSE keys ----

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  const out = Buffer.alloc(length < 0x10000 ? 3 : 5);
  out[0] = (major << 5) | (length < 0x10000 ? 25 : 26);
  if (length < 0x10000) out.writeUInt16BE(length, 1);
  else out.writeUInt32BE(length, 1);
  return out;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

// ---- authenticator data ----

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const uint32 = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
};

/** The credential public key as a COSE_Key: EC2 (1: 2), ES256 (3: -7), P-256 (-1: 1), x (-2), y (-3). */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  return cbor(
    new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
}

export interface StoredCredential {
  id: string;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a test may change in a ceremony. */
export interface Tweaks {
  /** clientDataJSON.origin (default: the authenticator's origin). */
  origin?: string;
  /** The RP id whose hash the authenticator data carries (default: the options' one). */
  rpId?: string;
  /** clientDataJSON.type (default: webauthn.create / webauthn.get). */
  type?: string;
  /** clientDataJSON.challenge (default: the options' one). */
  challenge?: string;
  /** Authenticator data flags (default: UP and UV, plus AT at registration). */
  flags?: number;
  /** The signature counter to report (default: the next one). */
  counter?: number;
  /** Flip a bit of the signature (it stays well-formed DER, it just does not verify). */
  tamperSignature?: boolean;
  /** Assert with this credential id instead of one the options allow. */
  credentialId?: string;
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** A fresh authenticator that speaks for pages at `origin`. */
export function softwareAuthenticator(origin: string) {
  const credentials = new Map<string, StoredCredential>();

  return {
    credentials,

    /** navigator.credentials.create(): a new ES256 credential, as RegistrationResponseJSON. */
    register(options: PublicKeyCredentialCreationOptionsJSON, tweaks: Tweaks = {}): RegistrationResponseJSON {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const credentialId = randomBytes(16);
      const counter = tweaks.counter ?? 0;
      const authData = Buffer.concat([
        sha256(tweaks.rpId ?? rpId),
        Buffer.from([tweaks.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT]),
        uint32(counter),
        Buffer.alloc(16), // AAGUID: all zeros, as "none" attestation allows
        Buffer.from([credentialId.length >> 8, credentialId.length & 0xff]),
        credentialId,
        coseKey(publicKey),
      ]);
      const attestationObject = cbor(
        new Map<Cbor, Cbor>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData],
        ]),
      );
      const id = b64url(credentialId);
      credentials.set(id, { id, privateKey, rpId, userHandle: options.user.id, counter });
      const data = clientData(
        tweaks.type ?? "webauthn.create",
        tweaks.challenge ?? options.challenge,
        tweaks.origin ?? origin,
      );
      return {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: b64url(data),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },

    /** navigator.credentials.get(): an assertion by an allowed (or the only) credential. */
    authenticate(options: PublicKeyCredentialRequestOptionsJSON, tweaks: Tweaks = {}): AuthenticationResponseJSON {
      const allowed = options.allowCredentials?.map((descriptor) => descriptor.id);
      const id = tweaks.credentialId ?? [...credentials.keys()].find((key) => !allowed || allowed.includes(key));
      const credential = id ? credentials.get(id) : undefined;
      if (!id || !credential) throw new Error("The authenticator holds no credential for these options");
      credential.counter = tweaks.counter ?? credential.counter + 1;
      const authData = Buffer.concat([
        sha256(tweaks.rpId ?? options.rpId ?? credential.rpId),
        Buffer.from([tweaks.flags ?? FLAGS.UP | FLAGS.UV]),
        uint32(credential.counter),
      ]);
      const data = clientData(
        tweaks.type ?? "webauthn.get",
        tweaks.challenge ?? options.challenge,
        tweaks.origin ?? origin,
      );
      const signature = sign("sha256", Buffer.concat([authData, sha256(data)]), credential.privateKey);
      if (tweaks.tamperSignature)
        signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0x01, signature.length - 1);
      return {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          userHandle: credential.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
  };
}

export type SoftwareAuthenticator = ReturnType<typeof softwareAuthenticator>;
