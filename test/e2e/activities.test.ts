import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctLocs, type Output } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestLead, createTestTenant, type TestTenant } from '../support/factories.ts';
import { allPages, byUpdatedThenId, startTestApi, type TestApi } from '../support/http.ts';

/** ActivityOut as the API answers it. */
type Activity = Output<'getActivity'>;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant()]);
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newLead = (tenantId = tenant.tenantId, name = 'Ana Buyer') =>
  createTestLead(tenantId, { name, email: null });

async function newListing(key = tenant.key, title = 'Flat by the sea'): Promise<string> {
  const res = await api.call('POST', '/v1/properties', { key, body: { title } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function addActivity(
  leadId: string,
  body: Record<string, unknown>,
  key = tenant.key,
): Promise<Activity> {
  const res = await api.call('POST', `/v1/leads/${leadId}/activities`, { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body as Activity;
}

const patch = (id: string, body: unknown, key = tenant.key) =>
  api.call('PATCH', `/v1/activities/${id}`, { key, body });

describe('POST /v1/leads/{lead_id}/activities', () => {
  it('creates an open Activity with every field, dates stored in UTC, readable by id', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing();
    const assignee = randomUUID();
    // Act
    const res = await api.call('POST', `/v1/leads/${leadId}/activities`, {
      body: {
        kind: 'visit',
        title: 'Show the flat',
        body: 'Bring the keys',
        due_at: '2030-05-01T10:30:00+02:00',
        reminder_at: '2030-05-01T09:30:00.5+02:00',
        assignee_user_id: assignee,
        property_id: propertyId,
      },
    });
    // Assess
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lead_id: leadId,
      kind: 'visit',
      title: 'Show the flat',
      body: 'Bring the keys',
      due_at: '2030-05-01T08:30:00.000Z',
      reminder_at: '2030-05-01T07:30:00.500Z',
      assignee_user_id: assignee,
      property_id: propertyId,
      completed: false,
      completed_at: null,
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    const read = await api.call('GET', `/v1/activities/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('lets a call and a note be undated, with every optional field null', async () => {
    // Prepare
    const leadId = await newLead();
    // Act
    const call = await addActivity(leadId, { kind: 'call', title: 'Ring back' });
    const note = await addActivity(leadId, {
      kind: 'note',
      title: 'Prefers email',
      due_at: null,
      body: null,
    });
    // Assess
    for (const a of [call, note]) {
      expect(a).toMatchObject({
        body: null,
        due_at: null,
        reminder_at: null,
        assignee_user_id: null,
        property_id: null,
        completed: false,
      });
    }
  });

  it('refuses a task, visit or meeting without due_at with 422 on body.due_at and writes nothing', async () => {
    // Prepare
    const leadId = await newLead();
    // Act
    const results = await Promise.all(
      [
        { kind: 'task', title: 'Send contract' },
        { kind: 'visit', title: 'Viewing', due_at: null },
        { kind: 'meeting', title: 'Notary' },
      ].map((body) => api.call('POST', `/v1/leads/${leadId}/activities`, { body })),
    );
    // Assess
    for (const res of results) {
      expect(res.status).toBe(422);
      expect(distinctLocs(res.body)).toEqual([['body', 'due_at']]);
    }
    const list = await api.call('GET', `/v1/leads/${leadId}/activities`);
    expect(list.body).toEqual({ data: [], next_cursor: null });
  });

  it('refuses a property_id that is unknown or another tenant’s listing with 422, writing nothing', async () => {
    // Prepare
    const leadId = await newLead();
    const theirs = await newListing(other.key, 'Not yours');
    // Act
    const unknown = await api.call('POST', `/v1/leads/${leadId}/activities`, {
      body: { kind: 'call', title: 'About a listing', property_id: randomUUID() },
    });
    const foreign = await api.call('POST', `/v1/leads/${leadId}/activities`, {
      body: { kind: 'call', title: 'About a listing', property_id: theirs },
    });
    // Assess
    for (const res of [unknown, foreign]) {
      expect(res.status).toBe(422);
      expect(distinctLocs(res.body)).toEqual([['body', 'property_id']]);
    }
    expect((await api.call('GET', `/v1/leads/${leadId}/activities`)).body.data).toEqual([]);
  });

  it('answers 404 for an unknown Lead and for another tenant’s Lead, 422 for a malformed lead_id', async () => {
    // Prepare
    const theirs = await newLead(other.tenantId);
    const body = { kind: 'note', title: 'Hello' };
    // Act
    const unknown = await api.call('POST', `/v1/leads/${randomUUID()}/activities`, { body });
    const foreign = await api.call('POST', `/v1/leads/${theirs}/activities`, { body });
    const malformed = await api.call('POST', '/v1/leads/not-a-uuid/activities', { body });
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(malformed.status).toBe(422);
    expect(distinctLocs(malformed.body)).toEqual([['path', 'lead_id']]);
    const theirList = await api.call('GET', `/v1/leads/${theirs}/activities`, { key: other.key });
    expect(theirList.body.data).toEqual([]);
  });

  it('names the field of each bad input with 422', async () => {
    // Prepare
    const leadId = await newLead();
    const post = (body: unknown) => api.call('POST', `/v1/leads/${leadId}/activities`, { body });
    const due = '2030-01-01T09:00:00Z';
    // Act
    const cases = {
      emptyTitle: await post({ kind: 'note', title: '' }),
      longTitle: await post({ kind: 'note', title: 'x'.repeat(256) }),
      noTitle: await post({ kind: 'note' }),
      unknownKind: await post({ kind: 'email', title: 'Hi' }),
      noKind: await post({ title: 'Hi' }),
      noOffset: await post({ kind: 'task', title: 'Hi', due_at: '2030-01-01T09:00:00' }),
      notADate: await post({ kind: 'task', title: 'Hi', due_at: 'tomorrow' }),
      badReminder: await post({ kind: 'call', title: 'Hi', reminder_at: '2030-01-01' }),
      badAssignee: await post({ kind: 'task', title: 'Hi', due_at: due, assignee_user_id: 'bob' }),
      badProperty: await post({ kind: 'task', title: 'Hi', due_at: due, property_id: '1234' }),
    };
    const longest = await post({ kind: 'note', title: 'x'.repeat(255) });
    // Assess
    const expected: Record<keyof typeof cases, string> = {
      emptyTitle: 'title',
      longTitle: 'title',
      noTitle: 'title',
      unknownKind: 'kind',
      noKind: 'kind',
      noOffset: 'due_at',
      notADate: 'due_at',
      badReminder: 'reminder_at',
      badAssignee: 'assignee_user_id',
      badProperty: 'property_id',
    };
    for (const [name, res] of Object.entries(cases)) {
      expect(res.status, name).toBe(422);
      expect(distinctLocs(res.body), name).toEqual([['body', expected[name as keyof typeof cases]]]);
    }
    expect(cases.noTitle.body.detail[0]).toEqual({
      loc: ['body', 'title'],
      msg: 'Field required',
      type: 'missing',
    });
    expect(longest.status).toBe(201);
    const list = await api.call('GET', `/v1/leads/${leadId}/activities`);
    expect(list.body.data.map((a: Activity) => a.id)).toEqual([longest.body.id]);
  });
});

describe('GET /v1/activities/{activity_id}', () => {
  it('answers 404 for an unknown id and for another tenant’s Activity, 422 for a malformed id', async () => {
    // Prepare
    const theirs = await addActivity(
      await newLead(other.tenantId),
      { kind: 'note', title: 'Secret' },
      other.key,
    );
    // Act
    const unknown = await api.call('GET', `/v1/activities/${randomUUID()}`);
    const foreign = await api.call('GET', `/v1/activities/${theirs.id}`);
    const foreignPatch = await patch(theirs.id, { title: 'Mine now' });
    const malformed = await api.call('GET', '/v1/activities/123');
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Secret');
    expect(foreignPatch.status).toBe(404);
    expect(malformed.status).toBe(422);
    expect(distinctLocs(malformed.body)).toEqual([['path', 'activity_id']]);
    const stillTheirs = await api.call('GET', `/v1/activities/${theirs.id}`, { key: other.key });
    expect(stillTheirs.body).toEqual(theirs);
  });
});

describe('PATCH /v1/activities/{activity_id}', () => {
  it('changes present fields, leaves omitted ones and clears nulls', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing();
    const created = await addActivity(leadId, {
      kind: 'call',
      title: 'Call about budget',
      body: 'Ask about financing',
      reminder_at: '2030-02-01T08:00:00Z',
      property_id: propertyId,
    });
    await sleep(2);
    // Act
    const edited = await patch(created.id, { title: 'Call about the mortgage', body: null, kind: null });
    // Assess
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toEqual({
      ...created,
      title: 'Call about the mortgage',
      body: null,
      updated_at: expect.any(String),
    });
    expect(edited.body.updated_at > created.updated_at).toBe(true);
    expect((await api.call('GET', `/v1/activities/${created.id}`)).body).toEqual(edited.body);

    // Act
    const moved = await patch(created.id, {
      kind: 'meeting',
      due_at: '2030-03-01T12:00:00-05:00',
      property_id: null,
      reminder_at: null,
    });
    // Assess
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({
      kind: 'meeting',
      title: 'Call about the mortgage',
      due_at: '2030-03-01T17:00:00.000Z',
      reminder_at: null,
      property_id: null,
      completed: false,
    });
  });

  it('completes with completed true (completed_at set once), reopens with false (completed_at cleared)', async () => {
    // Prepare
    const leadId = await newLead();
    const task = await addActivity(leadId, {
      kind: 'task',
      title: 'Send brochure',
      due_at: '2030-01-01T09:00:00Z',
    });
    await sleep(2);
    // Act
    const done = await patch(task.id, { completed: true });
    // Assess
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ completed: true, title: 'Send brochure', due_at: task.due_at });
    expect(done.body.completed_at).toBe(done.body.updated_at);
    expect(done.body.updated_at > task.updated_at).toBe(true);

    // Act: completing a done Activity again changes nothing
    const again = await patch(task.id, { completed: true });
    const untouched = await patch(task.id, { completed: null });
    // Assess
    expect(again.body).toEqual(done.body);
    expect(untouched.body).toEqual(done.body);

    // Act
    await sleep(2);
    const reopened = await patch(task.id, { completed: false });
    // Assess
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ completed: false, completed_at: null });
    expect(reopened.body.updated_at > done.body.updated_at).toBe(true);

    // Act: done again, with another field in the same request
    const redone = await patch(task.id, { completed: true, body: 'Sent by post' });
    // Assess
    expect(redone.body).toMatchObject({ completed: true, body: 'Sent by post' });
    expect(redone.body.completed_at > done.body.completed_at).toBe(true);
  });

  it('refuses to leave a task, visit or meeting without due_at, changing nothing', async () => {
    // Prepare
    const leadId = await newLead();
    const call = await addActivity(leadId, { kind: 'call', title: 'Undated call', body: 'keep' });
    const task = await addActivity(leadId, { kind: 'task', title: 'Dated', due_at: '2030-01-01T09:00:00Z' });
    // Act
    const toVisit = await patch(call.id, { kind: 'visit', body: 'changed' });
    const clearDue = await patch(task.id, { due_at: null, completed: true });
    const toTaskNullDue = await patch(call.id, { kind: 'task', due_at: null });
    const toNote = await patch(task.id, { kind: 'note', due_at: null });
    // Assess
    for (const res of [toVisit, clearDue, toTaskNullDue]) {
      expect(res.status).toBe(422);
      expect(distinctLocs(res.body)).toEqual([['body', 'due_at']]);
    }
    expect((await api.call('GET', `/v1/activities/${call.id}`)).body).toEqual(call);
    expect(toNote.status).toBe(200);
    expect(toNote.body).toMatchObject({ kind: 'note', due_at: null, completed: false });
  });

  it('names the field of bad input with 422 and leaves the Activity unchanged', async () => {
    // Prepare
    const leadId = await newLead();
    const theirListing = await newListing(other.key, 'Theirs');
    const note = await addActivity(leadId, { kind: 'note', title: 'Stays' });
    // Act
    const cases = {
      title: await patch(note.id, { title: '' }),
      kind: await patch(note.id, { kind: 'sms' }),
      completed: await patch(note.id, { completed: 'yes' }),
      due_at: await patch(note.id, { due_at: '2030-01-01 09:00' }),
      property_id: await patch(note.id, { property_id: theirListing }),
    };
    const longTitle = await patch(note.id, { title: 'y'.repeat(256), body: 'no' });
    // Assess
    for (const [field, res] of Object.entries(cases)) {
      expect(res.status, field).toBe(422);
      expect(distinctLocs(res.body), field).toEqual([['body', field]]);
    }
    expect(distinctLocs(longTitle.body)).toEqual([['body', 'title']]);
    expect((await api.call('GET', `/v1/activities/${note.id}`)).body).toEqual(note);
  });

  it('refuses an empty edit (422 at ["body"]) and answers one of current values with the Activity unchanged (updated_at kept)', async () => {
    // Prepare
    const note = await addActivity(await newLead(), { kind: 'note', title: 'Same' });
    // Act
    const empty = await patch(note.id, {});
    const same = await patch(note.id, { title: 'Same', kind: 'note', completed: false, body: null });
    // Assess
    expect(empty.status, empty.text).toBe(422);
    expect(distinctLocs(empty.body)).toEqual([['body']]);
    expect(same.body).toEqual(note);
  });

  it('leaves kind, title and completed as they are when sent as null (they cannot be cleared)', async () => {
    // Prepare
    const task = await addActivity(await newLead(), {
      kind: 'task',
      title: 'Keep me',
      body: 'old',
      due_at: '2030-01-01T09:00:00Z',
    });
    await patch(task.id, { completed: true });
    const done = (await api.call('GET', `/v1/activities/${task.id}`)).body as Activity;
    // Act
    const res = await patch(task.id, { kind: null, title: null, completed: null, body: 'new' });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...done, body: 'new', updated_at: expect.any(String) });
    expect(res.body.updated_at > done.updated_at).toBe(true);
  });
});

describe('scopes', () => {
  it('needs activities:write to write and activities:read to read', async () => {
    // Prepare
    const leadId = await newLead();
    const activity = await addActivity(leadId, { kind: 'note', title: 'Scoped' });
    const reader = await tenant.newKey(['activities:read']);
    const leadsOnly = await tenant.newKey(['leads:write']);
    // Act
    const read = await api.call('GET', `/v1/activities/${activity.id}`, { key: reader.key });
    const list = await api.call('GET', `/v1/leads/${leadId}/activities`, { key: reader.key });
    const write = await patch(activity.id, { title: 'No' }, reader.key);
    const create = await api.call('POST', `/v1/leads/${leadId}/activities`, {
      key: leadsOnly.key,
      body: { kind: 'note', title: 'No' },
    });
    const leadsRead = await api.call('GET', '/v1/activities', { key: leadsOnly.key });
    // Assess
    expect(read.status).toBe(200);
    expect(list.status).toBe(200);
    expect(write.status).toBe(403);
    expect(create.status).toBe(403);
    expect(leadsRead.status).toBe(403);
  });
});

describe('GET /v1/activities and GET /v1/leads/{lead_id}/activities', () => {
  it('pages every Activity once in (updated_at, id) order, per tenant and per Lead', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const [leadA, leadB] = [await newLead(fresh.tenantId), await newLead(fresh.tenantId)];
    const created: Activity[] = [];
    for (let i = 0; i < 7; i++) {
      created.push(
        await addActivity(i % 2 === 0 ? leadA : leadB, { kind: 'note', title: `N${i}` }, fresh.key),
      );
    }
    await addActivity(await newLead(other.tenantId), { kind: 'note', title: 'Elsewhere' }, other.key);
    const order = (items: Activity[]) => [...items].sort(byUpdatedThenId).map((a) => a.id);
    // Act
    const all = await allPages<Activity>(api, '/v1/activities?limit=3', fresh.key);
    const ofA = await allPages<Activity>(api, `/v1/leads/${leadA}/activities?limit=2`, fresh.key);
    const ofB = await allPages<Activity>(api, `/v1/leads/${leadB}/activities?limit=3`, fresh.key);
    // Assess
    expect(all.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(all.flat().map((a) => a.id)).toEqual(order(created));
    expect(ofA.map((p) => p.length)).toEqual([2, 2]);
    expect(ofA.flat().map((a) => a.id)).toEqual(order(created.filter((a) => a.lead_id === leadA)));
    expect(ofB.map((p) => p.length)).toEqual([3]);
    expect(ofB.flat().map((a) => a.id)).toEqual(order(created.filter((a) => a.lead_id === leadB)));
    expect(all.flat()).toEqual(created.sort(byUpdatedThenId));
  });

  it('moves an Activity completed while paging to the end, so a full pass skips nothing', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const leadId = await newLead(fresh.tenantId);
    const created: Activity[] = [];
    for (let i = 0; i < 6; i++) {
      created.push(
        await addActivity(
          leadId,
          { kind: 'task', title: `T${i}`, due_at: '2030-01-01T09:00:00Z' },
          fresh.key,
        ),
      );
    }
    const order = [...created].sort(byUpdatedThenId).map((a) => a.id);
    const seen: Activity[] = [];
    await afterIndexLag(); // the list is read through an index, after the test's writes
    // Act
    const first = await api.call('GET', `/v1/leads/${leadId}/activities?limit=3`, { key: fresh.key });
    seen.push(...first.body.data);
    const [alreadySeen, notYetSeen] = [order[0] as string, order[4] as string];
    for (const id of [alreadySeen, notYetSeen]) {
      expect((await patch(id, { completed: true }, fresh.key)).status).toBe(200);
      await sleep(2);
    }
    await afterIndexLag(); // the edits move them to the end of the index
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const res = await api.call(
        'GET',
        `/v1/leads/${leadId}/activities?limit=3&cursor=${encodeURIComponent(cursor)}`,
        { key: fresh.key },
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
    }
    // Assess
    const ids = seen.map((a) => a.id);
    expect(new Set(ids)).toEqual(new Set(order));
    expect(ids.slice(-2)).toEqual([alreadySeen, notYetSeen]);
    expect(seen.slice(-2).every((a) => a.completed)).toBe(true);
    expect(ids.filter((id) => id === notYetSeen)).toHaveLength(1);
    const tenantWide = (await allPages<Activity>(api, '/v1/activities?limit=200', fresh.key)).flat();
    expect(tenantWide.map((a) => a.id).slice(-2)).toEqual([alreadySeen, notYetSeen]);
  });

  it('filters by updated_since given with Z or another offset', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const leadId = await newLead(fresh.tenantId);
    const older = await addActivity(leadId, { kind: 'note', title: 'Older' }, fresh.key);
    await sleep(30);
    const newer = [
      await addActivity(leadId, { kind: 'note', title: 'Newer 1' }, fresh.key),
      await addActivity(leadId, { kind: 'call', title: 'Newer 2' }, fresh.key),
    ];
    const between = new Date(Date.parse(older.updated_at) + 15);
    const zulu = between.toISOString();
    const plusTwo = new Date(between.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    await afterIndexLag(); // the lists are read through indexes, after the test's writes
    // Act
    const results = await Promise.all(
      [zulu, plusTwo].flatMap((since) => [
        api.call('GET', `/v1/activities?updated_since=${encodeURIComponent(since)}`, { key: fresh.key }),
        api.call('GET', `/v1/leads/${leadId}/activities?updated_since=${encodeURIComponent(since)}`, {
          key: fresh.key,
        }),
      ]),
    );
    const paged = await allPages<Activity>(
      api,
      `/v1/activities?limit=1&updated_since=${encodeURIComponent(zulu)}`,
      fresh.key,
    );
    // Assess
    for (const res of results) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((a: Activity) => a.id)).toEqual(newer.map((a) => a.id));
    }
    expect(paged.flat().map((a) => a.id)).toEqual(newer.map((a) => a.id));
  });

  it('refuses a bad limit, updated_since without offset and a cursor edited or from another list with 422', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const [leadA, leadB] = [await newLead(fresh.tenantId), await newLead(fresh.tenantId)];
    for (let i = 0; i < 2; i++) {
      await addActivity(leadA, { kind: 'note', title: `A${i}` }, fresh.key);
      await addActivity(leadB, { kind: 'note', title: `B${i}` }, fresh.key);
    }
    const get = (path: string) => api.call('GET', path, { key: fresh.key });
    await afterIndexLag(); // the cursors come from lists read through indexes
    const leadCursor: string = (await get(`/v1/leads/${leadA}/activities?limit=1`)).body.next_cursor;
    const allCursor: string = (await get('/v1/activities?limit=1')).body.next_cursor;
    const [data = '', mac = ''] = allCursor.split('.');
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
    payload.position.updatedAt = '2000-01-01T00:00:00.000Z';
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const enc = encodeURIComponent;
    // Act
    const cursorCases = [
      await get(`/v1/activities?cursor=${enc(forged)}`),
      await get(`/v1/activities?cursor=${enc(leadCursor)}`),
      await get(`/v1/leads/${leadB}/activities?cursor=${enc(leadCursor)}`),
      await get(`/v1/leads/${leadA}/activities?cursor=${enc(allCursor)}`),
      await get(`/v1/activities?updated_since=2020-01-01T00:00:00Z&cursor=${enc(allCursor)}`),
      await get('/v1/activities?cursor=garbage'),
    ];
    const tooMany = await get('/v1/activities?limit=201');
    const zero = await get(`/v1/leads/${leadA}/activities?limit=0`);
    const noOffset = await get(`/v1/leads/${leadA}/activities?updated_since=2024-01-01T00:00:00`);
    const max = await get('/v1/activities?limit=200');
    const unknownLead = await get(`/v1/leads/${randomUUID()}/activities`);
    // Assess
    for (const res of cursorCases) {
      expect(res.status).toBe(422);
      expect(distinctLocs(res.body)).toEqual([['query', 'cursor']]);
    }
    for (const res of [tooMany, zero]) {
      expect(res.status).toBe(422);
      expect(distinctLocs(res.body)).toEqual([['query', 'limit']]);
    }
    expect(distinctLocs(noOffset.body)).toEqual([['query', 'updated_since']]);
    expect(max.status).toBe(200);
    expect(max.body.data).toHaveLength(4);
    expect(max.body.next_cursor).toBeNull();
    expect(unknownLead.status).toBe(404);
  });

  it('keeps tenants apart: another tenant’s Lead answers 404 and its Activities never show', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const theirLead = await newLead(other.tenantId);
    await addActivity(theirLead, { kind: 'note', title: 'Theirs' }, other.key);
    // Act
    const foreignLead = await api.call('GET', `/v1/leads/${theirLead}/activities`, { key: fresh.key });
    const mine = await api.call('GET', '/v1/activities', { key: fresh.key });
    // Assess
    expect(foreignLead.status).toBe(404);
    expect(mine.body).toEqual({ data: [], next_cursor: null });
  });
});
