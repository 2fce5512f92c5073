import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOffsiteUrl } from '../../src/config/offsite-url.ts';
import { checkObjectName, checkObjectPrefix } from '../../src/offsite/target/offsite-target.ts';
import { openOffsiteTarget } from '../../src/offsite/target/open-offsite-target.ts';

test('file:///absolute/path names a local directory, in one normal form', () => {
  assert.deepEqual(parseOffsiteUrl('file:///srv/offsite'), { kind: 'file', path: '/srv/offsite' });
  assert.deepEqual(parseOffsiteUrl('file:///srv/offsite/'), { kind: 'file', path: '/srv/offsite' });
  assert.deepEqual(parseOffsiteUrl('FILE:///srv//offsite'), { kind: 'file', path: '/srv/offsite' });
  assert.deepEqual(parseOffsiteUrl('file:///mnt/USB%20disk/copies'), { kind: 'file', path: '/mnt/USB disk/copies' });
  assert.deepEqual(parseOffsiteUrl('file:///'), { kind: 'file', path: '/' });
});

test('s3://bucket/prefix names a bucket and a prefix without slashes at its ends', () => {
  assert.deepEqual(parseOffsiteUrl('s3://my-backups/wallet-admin/prod'), { kind: 's3', bucket: 'my-backups', prefix: 'wallet-admin/prod' });
  assert.deepEqual(parseOffsiteUrl('s3://my-backups/wallet-admin/'), { kind: 's3', bucket: 'my-backups', prefix: 'wallet-admin' });
  assert.deepEqual(parseOffsiteUrl('s3://my-backups'), { kind: 's3', bucket: 'my-backups', prefix: '' });
  assert.deepEqual(parseOffsiteUrl('s3://my-backups/'), { kind: 's3', bucket: 'my-backups', prefix: '' });
  assert.deepEqual(parseOffsiteUrl('S3://my.backups.eu/a%20b'), { kind: 's3', bucket: 'my.backups.eu', prefix: 'a b' });
});

test('other schemes, and what is not a URL at all, are refused with what to write', () => {
  for (const url of ['https://bucket.s3.amazonaws.com/x', 'gs://bucket/x', 'ftp://host/x', 'sftp://host/x']) {
    assert.throws(
      () => parseOffsiteUrl(url),
      /^Error: OFFSITE_URL must be file:\/\/\/absolute\/path or s3:\/\/bucket\/prefix, not a \w+: URL$/,
      url,
    );
  }
  assert.throws(() => parseOffsiteUrl(''), /OFFSITE_URL is empty/);
  assert.throws(() => parseOffsiteUrl('  '), /OFFSITE_URL is empty/);
  assert.throws(() => parseOffsiteUrl('/srv/offsite'), /must start with file:\/\/\/ or s3:\/\//);
  assert.throws(() => parseOffsiteUrl('backups'), /must start with file:\/\/\/ or s3:\/\//);
});

test('a file URL with a relative path, a host, a query, a fragment or dot segments is refused', () => {
  for (const url of ['file:backups', 'file:./backups', 'file:/srv/offsite', 'file://./backups', 'file://../backups', 'file://~/backups']) {
    assert.throws(() => parseOffsiteUrl(url), /file URL needs an absolute path, written file:\/\/\/absolute\/path/, url);
  }
  for (const url of ['file://backup-host/srv/offsite', 'file://localhost/srv/offsite']) {
    assert.throws(() => parseOffsiteUrl(url), /file URL must not name a host/, url);
  }
  for (const url of ['file:///srv/offsite?mode=fast', 'file:///srv/offsite#copy', 'file:///srv/offsite?']) {
    assert.throws(() => parseOffsiteUrl(url), /must not have a query or fragment/, url);
  }
  for (const url of ['file:///srv/../etc', 'file:///srv/./offsite', 'file:///srv/%2e%2e/etc']) {
    assert.throws(() => parseOffsiteUrl(url), /must not have '\.' or '\.\.' segments/, url);
  }
  assert.throws(() => parseOffsiteUrl('file:///srv/a%2Fb'), /file URL's path is not usable/);
});

test('an s3 URL without a bucket, with a bad bucket, credentials, a port, a query or a bad prefix is refused', () => {
  for (const url of ['s3://', 's3:///prefix', 's3:bucket/prefix']) {
    assert.throws(() => parseOffsiteUrl(url), /s3 URL needs a bucket: s3:\/\/bucket or s3:\/\/bucket\/prefix/, url);
  }
  for (const url of ['s3://My_Bucket/x', 's3://ab/x', 's3://-bucket/x']) {
    assert.throws(() => parseOffsiteUrl(url), /is not a valid bucket name/, url);
  }
  assert.throws(() => parseOffsiteUrl('s3://bucket:9000/x'), /names a bucket, not a host and port/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/x?region=eu-west-1'), /must not have a query or fragment/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/x#y'), /must not have a query or fragment/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/a//b'), /must not have an empty segment/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/a/../b'), /must not have '\.' or '\.\.' segments/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/a%2Fb'), /must not hold an encoded '\/'/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/a%ZZ'), /malformed %-escape/);
  assert.throws(() => parseOffsiteUrl('s3://bucket/a%0Ab'), /control character/);
});

test('credentials in the URL are refused, and never repeated in the message', () => {
  for (const url of ['s3://AKIAEXAMPLE:hunter2secret@bucket/x', 'file://user:hunter2secret@/srv']) {
    assert.throws(
      () => parseOffsiteUrl(url),
      (error: Error) => {
        assert.match(error.message, /must not hold credentials/);
        assert.doesNotMatch(error.message, /hunter2secret|AKIAEXAMPLE/);
        return true;
      },
      url,
    );
  }
});

test('openOffsiteTarget: an s3 URL needs the S3 settings', async () => {
  await assert.rejects(openOffsiteTarget({ kind: 's3', bucket: 'bucket', prefix: 'x' }), /s3:\/\/bucket\/x needs the S3 settings/);
});

test('object names: the rule both targets share', () => {
  for (const name of ['generations/g1/segments/000000000012.age', 'blobs/0a1b.age', 'manifest', 'a b/é.age']) {
    assert.equal(checkObjectName(name), name);
  }
  for (const name of ['', '..', '../x', 'a/../b', 'a/./b', '/a', 'a//b', 'a/', 'a\\b', '.tmp-1', 'a/.x', 'a\nb', 'x'.repeat(256)]) {
    assert.throws(() => checkObjectName(name), /^Error: offsite object name .* is refused: it /, JSON.stringify(name));
  }
  for (const prefix of ['', 'generations/', 'generations/g1', 'blobs/0']) assert.equal(checkObjectPrefix(prefix), prefix);
  for (const prefix of ['/', '../', 'a//', 'a/../b/', 'a\\']) {
    assert.throws(() => checkObjectPrefix(prefix), /is refused/, JSON.stringify(prefix));
  }
});
