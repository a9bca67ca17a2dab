import { assert } from "../../../tests/helpers/assert.ts";
import { DirectoryLockedError, lockDirectory } from "./dir_lock.ts";

Deno.test("the embedded database directory admits one live process at a time", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Held by a live process other than this one: refused with a message naming the fix.
    const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
    await Deno.writeTextFile(`${dir}/dds.lock`, String(sleeper.pid));
    try {
      await lockDirectory(dir);
      assert.fail("a held lock was taken");
    } catch (error) {
      assert.ok(error instanceof DirectoryLockedError);
      assert.match(error.message, /in use by process \d+.*DATABASE_URL/);
    } finally {
      sleeper.kill();
      await sleeper.status;
    }
    // The holder is gone: its stale lock is taken over, and released on unlock.
    const unlock = await lockDirectory(dir);
    assert.equal(await Deno.readTextFile(`${dir}/dds.lock`), String(Deno.pid));
    await unlock();
    await Deno.stat(`${dir}/dds.lock`).then(() => assert.fail("lock left behind"), () => {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
