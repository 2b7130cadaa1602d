import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import {
  idTokenAudiences,
  SOCIAL_PROVIDER_IDS,
  SOCIAL_PROVIDERS,
  type FetchProfileContext,
  type ProviderConfig,
  type ProviderExtras,
  type ProviderTokens,
  type SocialProfile,
  type SocialProviderId,
} from "./index.server";

function configFor(id: SocialProviderId, extras: ProviderExtras = {}): ProviderConfig {
  return {
    id,
    clientId: `${id}-client-id`,
    clientSecret: `${id}-secret`,
    ...SOCIAL_PROVIDERS[id].endpoints(extras),
    extras,
  };
}

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/** A fetch that records each request and answers like the provider would. */
function fakeFetch(answer: (url: string) => Response | Promise<Response>) {
  const requests: Recorded[] = [];
  const signals: unknown[] = [];
  const fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    requests.push({
      url: String(input),
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers)),
      body: init.body == null ? null : String(init.body),
    });
    signals.push(init.signal);
    return answer(String(input));
  }) as typeof globalThis.fetch;
  return { fetch, requests, signals };
}

function context(
  id: SocialProviderId,
  fetch: typeof globalThis.fetch,
  tokens: Partial<ProviderTokens> = {},
  extras: ProviderExtras = {},
): FetchProfileContext {
  return { tokens: { accessToken: "access-token", ...tokens }, config: configFor(id, extras), fetch };
}

const USER_AGENT = "web:saas-app:1.0 (social sign-in)";
const getHeaders = (extra: Record<string, string> = {}) => ({
  accept: "application/json",
  authorization: "Bearer access-token",
  "user-agent": USER_AGENT,
  ...extra,
});

// ---- recorded user info, as each provider returns it today ----

const appleClaims = {
  iss: "https://appleid.apple.com",
  aud: "com.example.web",
  exp: 1735693200,
  iat: 1735689600,
  sub: "001234.8a6b0c1d2e3f4a5b6c7d8e9f0a1b2c3d.1234",
  c_hash: "w3_3mSLcgvFJ2Q0ONTTUiA",
  email: "k7xq9m2d4f@privaterelay.appleid.com",
  email_verified: "true",
  is_private_email: "true",
  auth_time: 1735689590,
  nonce_supported: true,
};

const githubUser = {
  login: "octocat",
  id: 583231,
  node_id: "MDQ6VXNlcjU4MzIzMQ==",
  avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4",
  gravatar_id: "",
  url: "https://api.github.com/users/octocat",
  html_url: "https://github.com/octocat",
  type: "User",
  site_admin: false,
  name: "The Octocat",
  company: "@github",
  blog: "https://github.blog",
  location: "San Francisco",
  email: null,
  hireable: null,
  bio: null,
  twitter_username: null,
  public_repos: 8,
  public_gists: 8,
  followers: 21400,
  following: 9,
  created_at: "2011-01-25T18:44:36Z",
  updated_at: "2025-01-10T12:00:00Z",
};

const githubEmails = [
  { email: "octocat@github.com", primary: true, verified: true, visibility: "private" },
  { email: "583231+octocat@users.noreply.github.com", primary: false, verified: true, visibility: null },
];

const microsoftClaims = {
  aud: "6cb04018-a3f5-46a7-b995-940c78f5aef3",
  iss: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
  iat: 1735689600,
  nbf: 1735689600,
  exp: 1735693500,
  email: "abeli@contoso.com",
  name: "Abe Lincoln",
  oid: "00000000-0000-0000-66f3-3332eca7ea81",
  preferred_username: "abeli@contoso.com",
  rh: "0.AXEAv4j5cvGGr0GRqy180BHbR0..",
  sub: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
  tid: "72f988bf-86f1-41af-91ab-2d7cd011db47",
  uti: "fqiBqXLPj0eQa82S-IYFAA",
  ver: "2.0",
};

const googleClaims = {
  iss: "https://accounts.google.com",
  azp: "1234987819200.apps.googleusercontent.com",
  aud: "1234987819200.apps.googleusercontent.com",
  sub: "10769150350006150715113082367",
  at_hash: "HK6E_P6Dh8Y93mRNtsDB1Q",
  hd: "example.com",
  email: "jsmith@example.com",
  email_verified: true,
  iat: 1735689600,
  exp: 1735693200,
  nonce: "0394852-3190485-2490358",
  name: "Jane Smith",
  picture: "https://lh3.googleusercontent.com/a/ACg8ocJ2dQWbR3y=s96-c",
  given_name: "Jane",
  family_name: "Smith",
};

const twitchUsers = {
  data: [
    {
      id: "141981764",
      login: "twitchdev",
      display_name: "TwitchDev",
      type: "",
      broadcaster_type: "partner",
      description: "Supporting third-party developers building Twitch integrations from chatbots to game integrations.",
      profile_image_url:
        "https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-d0c0-4576-b179-38bd5ce1d6af-profile_image-300x300.png",
      offline_image_url:
        "https://static-cdn.jtvnw.net/jtv_user_pictures/3f13ab61-ec78-4fe6-8481-8682cb3b0ac2-channel_offline_image-1920x1080.png",
      view_count: 5980557,
      email: "not-real@email.com",
      created_at: "2016-12-14T20:32:28Z",
    },
  ],
};

const dropboxAccount = {
  account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
  name: {
    given_name: "Franz",
    surname: "Ferdinand",
    familiar_name: "Franz",
    display_name: "Franz Ferdinand (Personal)",
    abbreviated_name: "FF",
  },
  email: "franz@dropbox.com",
  email_verified: true,
  disabled: false,
  locale: "en",
  referral_link: "https://db.tt/ZITNuhtI",
  is_paired: false,
  account_type: { ".tag": "basic" },
  root_info: { ".tag": "user", root_namespace_id: "3235641", home_namespace_id: "3235641" },
  profile_photo_url:
    "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102&size=128x128",
  country: "US",
};

const vkUserInfo = {
  user: {
    user_id: "1234567890",
    first_name: "Ivan",
    last_name: "Ivanov",
    phone: "79991234567",
    avatar: "https://sun1-99.userapi.com/s/v1/ig2/AbCdEf.jpg?size=200x200&quality=95&crop=0,0,400,400&ava=1",
    email: "ivan.ivanov@vk.com",
    sex: 2,
    verified: false,
    birthday: "01.01.1990",
  },
};

const tiktokUserInfo = {
  data: {
    user: {
      avatar_large_url:
        "https://p16-sign-va.tiktokcdn.com/tos-maliva-avt-0068/7f8a9b~tplv-tiktokx-cropcenter:1080:1080.jpeg?x-expires=1735776000",
      display_name: "Tik Toker",
      open_id: "-000OGRoyqDcmVY3oVl-JcBRkZ4YpQyfmgaY",
      username: "tiktoker",
    },
  },
  error: { code: "ok", message: "", log_id: "20250101000000ABCDEF0123456789" },
};

const cases: Record<SocialProviderId, { raw: unknown; profile: SocialProfile }> = {
  apple: {
    raw: { claims: appleClaims, user: { name: { firstName: "Jane", lastName: "Appleseed" } } },
    profile: {
      id: "001234.8a6b0c1d2e3f4a5b6c7d8e9f0a1b2c3d.1234",
      email: "k7xq9m2d4f@privaterelay.appleid.com",
      emailVerified: true,
      name: "Jane Appleseed",
      image: null,
    },
  },
  discord: {
    raw: {
      id: "80351110224678912",
      username: "nelly",
      discriminator: "0",
      global_name: "Nelly",
      avatar: "8342729096ea3675442027381ff50dfe",
      bot: false,
      mfa_enabled: true,
      banner: null,
      accent_color: null,
      locale: "en-US",
      verified: true,
      email: "nelly@discord.com",
      flags: 64,
      premium_type: 1,
      public_flags: 64,
      avatar_decoration_data: null,
    },
    profile: {
      id: "80351110224678912",
      email: "nelly@discord.com",
      emailVerified: true,
      name: "Nelly",
      image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  facebook: {
    raw: {
      id: "10158412347654321",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      picture: {
        data: {
          height: 50,
          is_silhouette: false,
          url: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158412347654321&height=50&width=50&ext=1738281600&hash=AbZ",
          width: 50,
        },
      },
    },
    profile: {
      id: "10158412347654321",
      email: "jane.doe@example.com",
      emailVerified: false,
      name: "Jane Doe",
      image:
        "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158412347654321&height=50&width=50&ext=1738281600&hash=AbZ",
    },
  },
  github: {
    raw: { user: githubUser, emails: githubEmails },
    profile: {
      id: "583231",
      email: "octocat@github.com",
      emailVerified: true,
      name: "The Octocat",
      image: "https://avatars.githubusercontent.com/u/583231?v=4",
    },
  },
  microsoft: {
    raw: { claims: microsoftClaims, photo: "data:image/jpeg;base64,/9j/4AAQ" },
    profile: {
      id: "00000000-0000-0000-66f3-3332eca7ea81",
      email: "abeli@contoso.com",
      // Neither email_verified nor a verified_*_email claim vouches for it.
      emailVerified: false,
      name: "Abe Lincoln",
      image: "data:image/jpeg;base64,/9j/4AAQ",
    },
  },
  google: {
    raw: googleClaims,
    profile: {
      id: "10769150350006150715113082367",
      email: "jsmith@example.com",
      emailVerified: true,
      name: "Jane Smith",
      image: "https://lh3.googleusercontent.com/a/ACg8ocJ2dQWbR3y=s96-c",
    },
  },
  huggingface: {
    raw: {
      sub: "62f4ac43567dbf9a39f75474",
      name: "Jane Doe",
      preferred_username: "janedoe",
      profile: "https://huggingface.co/janedoe",
      picture: "https://cdn-avatars.huggingface.co/v1/production/uploads/62f4ac43567dbf9a39f75474/avatar.png",
      website: "https://janedoe.dev",
      email: "jane@example.com",
      email_verified: true,
      isPro: false,
      orgs: [],
    },
    profile: {
      id: "62f4ac43567dbf9a39f75474",
      email: "jane@example.com",
      emailVerified: true,
      name: "Jane Doe",
      image: "https://cdn-avatars.huggingface.co/v1/production/uploads/62f4ac43567dbf9a39f75474/avatar.png",
    },
  },
  spotify: {
    raw: {
      country: "SE",
      display_name: "JM Wizzler",
      email: "email@example.com",
      explicit_content: { filter_enabled: false, filter_locked: false },
      external_urls: { spotify: "https://open.spotify.com/user/wizzler" },
      followers: { href: null, total: 3829 },
      href: "https://api.spotify.com/v1/users/wizzler",
      id: "wizzler",
      images: [
        { url: "https://i.scdn.co/image/ab6775700000ee8555c25988a6ac314394d3fbf5", height: 300, width: 300 },
        { url: "https://i.scdn.co/image/ab67757000003b8255c25988a6ac314394d3fbf5", height: 64, width: 64 },
      ],
      product: "premium",
      type: "user",
      uri: "spotify:user:wizzler",
    },
    profile: {
      id: "wizzler",
      email: "email@example.com",
      emailVerified: false,
      name: "JM Wizzler",
      image: "https://i.scdn.co/image/ab6775700000ee8555c25988a6ac314394d3fbf5",
    },
  },
  twitch: {
    raw: twitchUsers,
    profile: {
      id: "141981764",
      email: "not-real@email.com",
      emailVerified: true,
      name: "TwitchDev",
      image:
        "https://static-cdn.jtvnw.net/jtv_user_pictures/8a6381c7-d0c0-4576-b179-38bd5ce1d6af-profile_image-300x300.png",
    },
  },
  twitter: {
    raw: {
      data: {
        id: "2244994945",
        name: "Developers",
        username: "XDevelopers",
        profile_image_url: "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg",
        confirmed_email: "devs@example.com",
      },
    },
    profile: {
      id: "2244994945",
      email: "devs@example.com",
      emailVerified: true,
      name: "Developers",
      image: "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg",
    },
  },
  dropbox: {
    raw: dropboxAccount,
    profile: {
      id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
      email: "franz@dropbox.com",
      emailVerified: true,
      name: "Franz Ferdinand (Personal)",
      image:
        "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?vers=1556069330102&size=128x128",
    },
  },
  kick: {
    raw: {
      data: [
        {
          email: "streamer@example.com",
          name: "kickstreamer",
          profile_picture: "https://files.kick.com/images/user/4377088/profile_image/conversion/0d3c-fullsize.webp",
          user_id: 4377088,
        },
      ],
      message: "OK",
    },
    profile: {
      id: "4377088",
      email: "streamer@example.com",
      emailVerified: false,
      name: "kickstreamer",
      image: "https://files.kick.com/images/user/4377088/profile_image/conversion/0d3c-fullsize.webp",
    },
  },
  linkedin: {
    raw: {
      sub: "782bbtaQ",
      email_verified: true,
      name: "John Doe",
      locale: { country: "US", language: "en" },
      given_name: "John",
      family_name: "Doe",
      email: "doe@email.com",
      picture: "https://media.licdn-ei.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/",
    },
    profile: {
      id: "782bbtaQ",
      email: "doe@email.com",
      emailVerified: true,
      name: "John Doe",
      image: "https://media.licdn-ei.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/",
    },
  },
  gitlab: {
    raw: {
      id: 1,
      username: "john_smith",
      email: "john@example.com",
      name: "John Smith",
      state: "active",
      locked: false,
      avatar_url: "https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png",
      web_url: "https://gitlab.com/john_smith",
      created_at: "2012-05-23T08:00:58Z",
      bio: "",
      location: "",
      public_email: "john@example.com",
      linkedin: "",
      twitter: "",
      website_url: "",
      organization: "",
      job_title: "Operations Specialist",
      pronouns: "he/him",
      bot: false,
      work_information: null,
      last_sign_in_at: "2012-06-01T11:41:01Z",
      confirmed_at: "2012-05-23T09:05:22Z",
      last_activity_on: "2012-05-23",
      theme_id: 1,
      color_scheme_id: 2,
      projects_limit: 100,
      current_sign_in_at: "2012-06-02T06:36:55Z",
      identities: [],
      can_create_group: true,
      can_create_project: true,
      two_factor_enabled: true,
      external: false,
      private_profile: false,
      commit_email: "john@example.com",
    },
    profile: {
      id: "1",
      email: "john@example.com",
      emailVerified: false,
      name: "John Smith",
      image: "https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png",
    },
  },
  tiktok: {
    raw: tiktokUserInfo,
    profile: {
      id: "-000OGRoyqDcmVY3oVl-JcBRkZ4YpQyfmgaY",
      email: null,
      emailVerified: false,
      name: "Tik Toker",
      image:
        "https://p16-sign-va.tiktokcdn.com/tos-maliva-avt-0068/7f8a9b~tplv-tiktokx-cropcenter:1080:1080.jpeg?x-expires=1735776000",
    },
  },
  reddit: {
    raw: {
      is_employee: false,
      has_verified_email: true,
      icon_img:
        "https://styles.redditmedia.com/t5_6ui9v/styles/profileIcon_snoo0b5d6d32-cb5d.png?width=256&amp;height=256&amp;crop=256:256,smart&amp;s=71e0",
      id: "1w72",
      name: "spez",
      verified: true,
      created_utc: 1118030400,
      snoovatar_img: "",
      total_karma: 932215,
      over_18: false,
    },
    profile: {
      id: "1w72",
      email: null,
      emailVerified: false,
      name: "spez",
      image: "https://styles.redditmedia.com/t5_6ui9v/styles/profileIcon_snoo0b5d6d32-cb5d.png",
    },
  },
  roblox: {
    raw: {
      sub: "1516563360",
      name: "exampleuser",
      nickname: "Example Display",
      preferred_username: "exampleuser",
      created_at: 1584682495,
      profile: "https://www.roblox.com/users/1516563360/profile",
      picture:
        "https://tr.rbxcdn.com/30DAY-AvatarHeadshot-310966282D3529E36976BF6B07B1DC90-Png/150/150/AvatarHeadshot/Png",
    },
    profile: {
      id: "1516563360",
      email: null,
      emailVerified: false,
      name: "Example Display",
      image:
        "https://tr.rbxcdn.com/30DAY-AvatarHeadshot-310966282D3529E36976BF6B07B1DC90-Png/150/150/AvatarHeadshot/Png",
    },
  },
  vk: {
    raw: vkUserInfo,
    profile: {
      id: "1234567890",
      email: "ivan.ivanov@vk.com",
      emailVerified: false,
      name: "Ivan Ivanov",
      image: "https://sun1-99.userapi.com/s/v1/ig2/AbCdEf.jpg?size=200x200&quality=95&crop=0,0,400,400&ava=1",
    },
  },
  zoom: {
    raw: {
      id: "KDcuGIm1QgePTO8WbOqwIQ",
      first_name: "Jill",
      last_name: "Chill",
      display_name: "Jill Chill",
      email: "jchill@example.com",
      type: 1,
      role_name: "Owner",
      pmi: 3542471135,
      use_pmi: false,
      personal_meeting_url: "https://example.zoom.us/j/6352635623323434343443",
      timezone: "Asia/Shanghai",
      verified: 1,
      dept: "",
      created_at: "2019-06-01T07:58:03Z",
      last_login_time: "2019-06-01T07:58:03Z",
      pic_url: "https://example.zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg",
      account_id: "q6gBJVO5TzexKYTb_I2rpg",
      language: "en-US",
      status: "active",
      role_id: "0",
      account_number: 10009239,
      cluster: "us05",
      user_created_at: "2019-06-01T07:58:03Z",
    },
    profile: {
      id: "KDcuGIm1QgePTO8WbOqwIQ",
      email: "jchill@example.com",
      emailVerified: true,
      name: "Jill Chill",
      image: "https://example.zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg",
    },
  },
};

describe("provider definitions", () => {
  it("defines every provider once, under its own id, with https endpoints", () => {
    expect(Object.keys(SOCIAL_PROVIDERS)).toEqual([...SOCIAL_PROVIDER_IDS]);
    for (const id of SOCIAL_PROVIDER_IDS) {
      const definition = SOCIAL_PROVIDERS[id];
      expect(definition.id).toBe(id);
      const endpoints = definition.endpoints({});
      for (const url of Object.values(endpoints)) expect(url).toMatch(/^https:\/\/[^/]+(\/|$)/);
      // An issuer always comes with the key set that verifies its tokens.
      expect(Boolean(endpoints.issuer)).toBe(Boolean(endpoints.jwksUrl));
    }
  });

  it("has a logo in the icon sprite for every provider", () => {
    const sprite = readFileSync(new URL("../../../../components/icons/sprite.svg", import.meta.url), "utf8");
    for (const id of SOCIAL_PROVIDER_IDS) expect(sprite, id).toContain(`<symbol id="brand-${id}"`);
  });

  it("lists the ID-token providers and the PKCE providers", () => {
    const ids = (keep: (id: SocialProviderId) => boolean) => SOCIAL_PROVIDER_IDS.filter(keep);
    expect(ids((id) => Boolean(SOCIAL_PROVIDERS[id].endpoints({}).issuer))).toEqual([
      "apple",
      "microsoft",
      "google",
      "huggingface",
      "twitch",
      "linkedin",
      "roblox",
    ]);
    expect(ids((id) => SOCIAL_PROVIDERS[id].pkce)).toEqual([
      "apple",
      "github",
      "microsoft",
      "google",
      "huggingface",
      "spotify",
      "twitter",
      "dropbox",
      "kick",
      "gitlab",
      "vk",
      "zoom",
    ]);
    expect(ids((id) => SOCIAL_PROVIDERS[id].tokenAuth === "basic")).toEqual(["twitter", "reddit"]);
  });

  it("puts Microsoft's tenant and GitLab's base URL into their endpoints", () => {
    expect(SOCIAL_PROVIDERS.microsoft.endpoints({})).toEqual({
      authorizationUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
      userInfoUrl: "https://graph.microsoft.com/v1.0/me",
      issuer: "https://login.microsoftonline.com/{tenantid}/v2.0",
      jwksUrl: "https://login.microsoftonline.com/common/discovery/v2.0/keys",
    });
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    expect(SOCIAL_PROVIDERS.microsoft.endpoints({ tenantId: tenant })).toEqual({
      authorizationUrl: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
      tokenUrl: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
      userInfoUrl: "https://graph.microsoft.com/v1.0/me",
      issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
      jwksUrl: `https://login.microsoftonline.com/${tenant}/discovery/v2.0/keys`,
    });
    expect(SOCIAL_PROVIDERS.gitlab.endpoints({ baseUrl: "https://git.example.com/gitlab" })).toEqual({
      authorizationUrl: "https://git.example.com/gitlab/oauth/authorize",
      tokenUrl: "https://git.example.com/gitlab/oauth/token",
      userInfoUrl: "https://git.example.com/gitlab/api/v4/user",
    });
  });

  it("adds the authorization parameters each provider needs", () => {
    const params = (id: SocialProviderId, extras: ProviderExtras = {}) =>
      SOCIAL_PROVIDERS[id].authorizationParams?.(configFor(id, extras)) ?? {};
    expect(params("apple")).toEqual({ response_mode: "form_post" });
    expect(params("discord")).toEqual({ prompt: "none" });
    expect(params("google")).toEqual({ include_granted_scopes: "true", access_type: "offline" });
    expect(params("google", { hostedDomain: "example.com" })).toEqual({
      include_granted_scopes: "true",
      access_type: "offline",
      hd: "example.com",
    });
    expect(params("roblox")).toEqual({ prompt: "select_account consent" });
    expect(params("github")).toEqual({});
  });

  it("names TikTok's client id client_key and joins its scopes with commas", () => {
    expect(SOCIAL_PROVIDERS.tiktok).toMatchObject({
      clientIdParam: "client_key",
      scopeSeparator: ",",
      scopes: ["user.info.basic", "user.info.profile"],
    });
  });

  it("accepts Apple ID tokens for the app's bundle id as well", () => {
    expect(idTokenAudiences(configFor("apple"))).toEqual(["apple-client-id"]);
    expect(idTokenAudiences(configFor("apple", { appBundleIdentifier: "com.example.ios" }))).toEqual([
      "apple-client-id",
      "com.example.ios",
    ]);
  });
});

describe("mapProfile", () => {
  for (const id of SOCIAL_PROVIDER_IDS) {
    it(`maps ${id}'s user info`, () => {
      expect(SOCIAL_PROVIDERS[id].mapProfile(cases[id].raw)).toEqual(cases[id].profile);
    });

    it(`gives null for ${id} user info without an id`, () => {
      expect(SOCIAL_PROVIDERS[id].mapProfile({})).toBeNull();
      expect(SOCIAL_PROVIDERS[id].mapProfile(null)).toBeNull();
    });
  }

  it("Apple: the name comes only with the first sign-in; email_verified may be a string", () => {
    expect(SOCIAL_PROVIDERS.apple.mapProfile({ claims: { ...appleClaims, email_verified: "false" } })).toEqual({
      id: appleClaims.sub,
      email: appleClaims.email,
      emailVerified: false,
      name: "",
      image: null,
    });
  });

  it("Discord: animated avatars are GIFs; without an avatar, Discord's default one", () => {
    const user = cases.discord.raw as Record<string, unknown>;
    const image = (changes: Record<string, unknown>) =>
      SOCIAL_PROVIDERS.discord.mapProfile({ ...user, ...changes })?.image;
    expect(image({ avatar: "a_1269e74af4df7417b13759eae50c83dc" })).toBe(
      "https://cdn.discordapp.com/avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif",
    );
    // New usernames: (id >> 22) % 6; legacy discriminators: discriminator % 5.
    expect(image({ avatar: null })).toBe("https://cdn.discordapp.com/embed/avatars/5.png");
    expect(image({ avatar: null, discriminator: "1337" })).toBe("https://cdn.discordapp.com/embed/avatars/2.png");
  });

  it("GitHub: a public email is used with its verified flag; otherwise only a verified primary one", () => {
    const map = SOCIAL_PROVIDERS.github.mapProfile;
    expect(map({ user: { ...githubUser, email: "octocat@github.com" }, emails: [] })).toMatchObject({
      email: "octocat@github.com",
      emailVerified: false,
    });
    const unverified = [{ email: "octocat@github.com", primary: true, verified: false, visibility: "private" }];
    expect(map({ user: githubUser, emails: unverified })).toEqual({
      id: "583231",
      email: null,
      emailVerified: false,
      name: "The Octocat",
      image: "https://avatars.githubusercontent.com/u/583231?v=4",
    });
    expect(map({ user: { ...githubUser, name: null }, emails: githubEmails })?.name).toBe("octocat");
  });

  it("Microsoft: verified when email_verified says so or a verified_*_email claim lists the address", () => {
    const map = (claims: Record<string, unknown>) =>
      SOCIAL_PROVIDERS.microsoft.mapProfile({ claims: { ...microsoftClaims, ...claims }, photo: null });
    expect(map({ verified_primary_email: ["abeli@contoso.com"] })?.emailVerified).toBe(true);
    expect(map({ verified_secondary_email: ["abeli@contoso.com"] })?.emailVerified).toBe(true);
    expect(map({ email_verified: "true" })?.emailVerified).toBe(true);
    expect(map({ email_verified: false, verified_primary_email: ["abeli@contoso.com"] })?.emailVerified).toBe(false);
    expect(map({})?.image).toBeNull();
  });

  it("X: without a confirmed email there is no email", () => {
    const { confirmed_email: _, ...user } = (cases.twitter.raw as { data: Record<string, unknown> }).data;
    expect(SOCIAL_PROVIDERS.twitter.mapProfile({ data: user })).toEqual({
      ...cases.twitter.profile,
      email: null,
      emailVerified: false,
    });
  });

  it("GitLab: a blocked or locked account gives no profile", () => {
    const user = cases.gitlab.raw as Record<string, unknown>;
    expect(SOCIAL_PROVIDERS.gitlab.mapProfile({ ...user, state: "blocked" })).toBeNull();
    expect(SOCIAL_PROVIDERS.gitlab.mapProfile({ ...user, locked: true })).toBeNull();
  });

  it("falls back to the user name when there is no display name", () => {
    const twitch = { data: [{ ...twitchUsers.data[0], display_name: "" }] };
    expect(SOCIAL_PROVIDERS.twitch.mapProfile(twitch)?.name).toBe("twitchdev");
    const zoom = { ...(cases.zoom.raw as Record<string, unknown>), display_name: undefined };
    expect(SOCIAL_PROVIDERS.zoom.mapProfile(zoom)?.name).toBe("Jill Chill");
    expect(SOCIAL_PROVIDERS.spotify.mapProfile({ id: "wizzler", display_name: null, images: [] })).toEqual({
      id: "wizzler",
      email: null,
      emailVerified: false,
      name: "",
      image: null,
    });
  });
});

describe("fetchProfile", () => {
  it("GETs the user info with the access token, a User-Agent and a 5 s timeout", async () => {
    const timeout = vi.spyOn(AbortSignal, "timeout");
    const { fetch, requests, signals } = fakeFetch(() => Response.json(cases.spotify.raw));
    const raw = await SOCIAL_PROVIDERS.spotify.fetchProfile(context("spotify", fetch));
    expect(raw).toEqual(cases.spotify.raw);
    expect(requests).toEqual([
      { url: "https://api.spotify.com/v1/me", method: "GET", headers: getHeaders(), body: null },
    ]);
    expect(timeout).toHaveBeenCalledWith(5000);
    expect(signals).toEqual([timeout.mock.results[0]?.value]);
    timeout.mockRestore();
  });

  it("uses the configured user-info endpoint", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(cases.gitlab.raw));
    const ctx = context("gitlab", fetch, {}, { baseUrl: "https://git.example.com" });
    await SOCIAL_PROVIDERS.gitlab.fetchProfile(ctx);
    expect(requests.map((request) => request.url)).toEqual(["https://git.example.com/api/v4/user"]);
  });

  it("fails when the provider answers with an error", async () => {
    const { fetch } = fakeFetch(() => Response.json({ message: "Bad credentials" }, { status: 401 }));
    await expect(SOCIAL_PROVIDERS.github.fetchProfile(context("github", fetch))).rejects.toThrow(
      "github: https://api.github.com/user answered HTTP 401",
    );
  });

  it("GitHub: reads /user and /user/emails, whose primary verified address fills in a private email", async () => {
    const { fetch, requests } = fakeFetch((url) => Response.json(url.endsWith("/emails") ? githubEmails : githubUser));
    const github = SOCIAL_PROVIDERS.github;
    const raw = await github.fetchProfile(context("github", fetch));
    const headers = getHeaders({ accept: "application/vnd.github+json" });
    expect(requests).toEqual([
      { url: "https://api.github.com/user", method: "GET", headers, body: null },
      { url: "https://api.github.com/user/emails", method: "GET", headers, body: null },
    ]);
    expect(github.mapProfile(raw)).toEqual(cases.github.profile);
  });

  it("GitHub: a failed /user/emails call leaves only the public email", async () => {
    const { fetch } = fakeFetch((url) =>
      url.endsWith("/emails")
        ? Response.json({ message: "Not Found" }, { status: 404 })
        : Response.json({ ...githubUser, email: "octocat@github.com" }),
    );
    const github = SOCIAL_PROVIDERS.github;
    expect(github.mapProfile(await github.fetchProfile(context("github", fetch)))).toEqual({
      ...cases.github.profile,
      emailVerified: false,
    });
  });

  it("Twitch: sends the Client-Id header with the token", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(twitchUsers));
    await SOCIAL_PROVIDERS.twitch.fetchProfile(context("twitch", fetch));
    expect(requests).toEqual([
      {
        url: "https://api.twitch.tv/helix/users",
        method: "GET",
        headers: getHeaders({ "client-id": "twitch-client-id" }),
        body: null,
      },
    ]);
  });

  it("Dropbox: POSTs to get_current_account without a body", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(dropboxAccount));
    expect(await SOCIAL_PROVIDERS.dropbox.fetchProfile(context("dropbox", fetch))).toEqual(dropboxAccount);
    expect(requests).toEqual([
      {
        url: "https://api.dropboxapi.com/2/users/get_current_account",
        method: "POST",
        headers: getHeaders(),
        body: null,
      },
    ]);
  });

  it("VK: POSTs the token and the client id as a form", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(vkUserInfo));
    expect(await SOCIAL_PROVIDERS.vk.fetchProfile(context("vk", fetch))).toEqual(vkUserInfo);
    expect(requests).toEqual([
      {
        url: "https://id.vk.com/oauth2/user_info",
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
          "user-agent": USER_AGENT,
        },
        body: "access_token=access-token&client_id=vk-client-id",
      },
    ]);
  });

  it("TikTok: asks for the fields it maps", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(tiktokUserInfo));
    await SOCIAL_PROVIDERS.tiktok.fetchProfile(context("tiktok", fetch));
    expect(requests).toEqual([
      {
        url: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_large_url,display_name,username",
        method: "GET",
        headers: getHeaders(),
        body: null,
      },
    ]);
  });

  it("Microsoft: the ID-token claims plus the Graph photo as a data: URL of the configured size", async () => {
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);
    const { fetch, requests } = fakeFetch(() => new Response(jpeg, { headers: { "content-type": "image/jpeg" } }));
    const microsoft = SOCIAL_PROVIDERS.microsoft;
    const ctx = context("microsoft", fetch, { idTokenClaims: microsoftClaims }, { profilePhotoSize: 96 });
    const raw = await microsoft.fetchProfile(ctx);
    expect(raw).toEqual({ claims: microsoftClaims, photo: "data:image/jpeg;base64,/9j/4AAQ" });
    expect(requests).toEqual([
      {
        url: "https://graph.microsoft.com/v1.0/me/photos/96x96/$value",
        method: "GET",
        headers: { authorization: "Bearer access-token", "user-agent": USER_AGENT },
        body: null,
      },
    ]);
    expect(microsoft.mapProfile(raw)).toEqual(cases.microsoft.profile);
  });

  it("Microsoft: 48 px by default, and no photo is no error", async () => {
    const microsoft = SOCIAL_PROVIDERS.microsoft;
    const missing = fakeFetch(() => Response.json({ error: { code: "ImageNotFound" } }, { status: 404 }));
    const ctx = context("microsoft", missing.fetch, { idTokenClaims: microsoftClaims });
    expect(await microsoft.fetchProfile(ctx)).toEqual({ claims: microsoftClaims, photo: null });
    expect(missing.requests[0]?.url).toBe("https://graph.microsoft.com/v1.0/me/photos/48x48/$value");

    const down = fakeFetch(() => Promise.reject(new TypeError("fetch failed")));
    const downCtx = context("microsoft", down.fetch, { idTokenClaims: microsoftClaims });
    expect(await microsoft.fetchProfile(downCtx)).toEqual({ claims: microsoftClaims, photo: null });
  });

  it("Microsoft: the organizations and consumers settings keep out the other kind of account", async () => {
    const { fetch } = fakeFetch(() => new Response(null, { status: 404 }));
    const personal = { ...microsoftClaims, tid: "9188040d-6c67-4c5b-b112-36a304b66dad" };
    const microsoft = SOCIAL_PROVIDERS.microsoft;
    const ctx = (claims: Record<string, unknown>, tenantId: string) =>
      context("microsoft", fetch, { idTokenClaims: claims }, { tenantId });
    await expect(microsoft.fetchProfile(ctx(personal, "organizations"))).rejects.toThrow(/organizations/);
    await expect(microsoft.fetchProfile(ctx(microsoftClaims, "consumers"))).rejects.toThrow(/consumers/);
    await expect(microsoft.fetchProfile(ctx(personal, "consumers"))).resolves.toMatchObject({ claims: personal });
  });

  it("Google and Apple: the profile is the verified ID-token claims, without any call", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json({}));
    expect(
      await SOCIAL_PROVIDERS.google.fetchProfile(context("google", fetch, { idTokenClaims: googleClaims })),
    ).toEqual(googleClaims);
    await expect(SOCIAL_PROVIDERS.google.fetchProfile(context("google", fetch))).rejects.toThrow(/ID token/);
    expect(requests).toEqual([]);
  });

  it("Google: a configured hosted domain must match the token's hd claim", async () => {
    const { fetch } = fakeFetch(() => Response.json({}));
    const google = SOCIAL_PROVIDERS.google;
    const ctx = (hostedDomain: string, claims: Record<string, unknown> = googleClaims) =>
      context("google", fetch, { idTokenClaims: claims }, { hostedDomain });
    await expect(google.fetchProfile(ctx("example.com"))).resolves.toEqual(googleClaims);
    await expect(google.fetchProfile(ctx("other.example"))).rejects.toThrow(/hosted domain/);
    await expect(google.fetchProfile(ctx("*"))).resolves.toEqual(googleClaims);
    const { hd: _, ...consumer } = googleClaims;
    await expect(google.fetchProfile(ctx("*", consumer))).rejects.toThrow(/hosted domain/);
  });

  it("Apple: the name comes from the user JSON Apple posts once; bad JSON is ignored", async () => {
    const { fetch } = fakeFetch(() => Response.json({}));
    const apple = SOCIAL_PROVIDERS.apple;
    const callbackUser = JSON.stringify({
      name: { firstName: "Jane", lastName: "Appleseed" },
      email: "k7xq9m2d4f@privaterelay.appleid.com",
    });
    const ctx = { ...context("apple", fetch, { idTokenClaims: appleClaims }), callbackUser };
    expect(apple.mapProfile(await apple.fetchProfile(ctx))).toEqual(cases.apple.profile);
    const garbled = { ...ctx, callbackUser: "{not json" };
    expect(apple.mapProfile(await apple.fetchProfile(garbled))?.name).toBe("");
  });

  it("OpenID providers: user info about someone other than the ID token's subject is refused", async () => {
    const { fetch } = fakeFetch(() => Response.json(cases.linkedin.raw));
    const linkedin = SOCIAL_PROVIDERS.linkedin;
    await expect(
      linkedin.fetchProfile(context("linkedin", fetch, { idTokenClaims: { sub: "782bbtaQ" } })),
    ).resolves.toEqual(cases.linkedin.raw);
    await expect(
      linkedin.fetchProfile(context("linkedin", fetch, { idTokenClaims: { sub: "someone-else" } })),
    ).rejects.toThrow(/another user/);
  });
});
