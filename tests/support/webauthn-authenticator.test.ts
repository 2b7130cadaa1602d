/**
 * The software authenticator against @simplewebauthn/server alone (no app): what it makes
 * verifies, and each tweak breaks exactly what it says.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import { cbor, softwareAuthenticator } from "./webauthn-authenticator";

const origin = "http://127.0.0.1:4000";
const rpID = "127.0.0.1";

async function registered() {
  const authenticator = softwareAuthenticator(origin);
  const options = await generateRegistrationOptions({ rpName: "Test", rpID, userName: "ada@example.com" });
  const result = await verifyRegistrationResponse({
    response: authenticator.register(options),
    expectedChallenge: options.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
  });
  return { authenticator, result };
}

describe("the software authenticator", () => {
  it("encodes CBOR in shortest form", () => {
    expect(cbor(23).toString("hex")).toBe("17");
    expect(cbor(24).toString("hex")).toBe("1818");
    expect(cbor(-7).toString("hex")).toBe("26");
    expect(cbor(300).toString("hex")).toBe("19012c");
    expect(cbor("fmt").toString("hex")).toBe("63666d74");
    expect(cbor(new Map([[1, 2]])).toString("hex")).toBe("a10102");
  });

  it("registers a credential the server library accepts", async () => {
    const { result } = await registered();
    expect(result.verified).toBe(true);
    expect(result.registrationInfo).toMatchObject({ fmt: "none", credentialDeviceType: "singleDevice" });
  });

  it("asserts with a counter that goes up; a flipped signature bit does not verify", async () => {
    const { authenticator, result } = await registered();
    const credential = result.registrationInfo!.credential;
    const verify = async (tamperSignature: boolean) => {
      const options = await generateAuthenticationOptions({ rpID });
      return verifyAuthenticationResponse({
        response: authenticator.authenticate(options, { tamperSignature }),
        expectedChallenge: options.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential,
      });
    };
    const good = await verify(false);
    expect(good.verified).toBe(true);
    expect(good.authenticationInfo.newCounter).toBe(1);
    expect((await verify(true)).verified).toBe(false);
  });
});
