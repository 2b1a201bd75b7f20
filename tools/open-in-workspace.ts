import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from '../core/errors';
import { directoryAccess, makeDirectoryAt, type DirectoryAccess } from './directory-access';
import { isInside, workspaceComponents } from './workspace';
import { deniedPath, type DeniedPaths } from '../core/approval-policy';

/**
 * What the caller will do with what it opens:
 * - `file`: read a regular file;
 * - `directory`: list a directory;
 * - `entry`: read a regular file or list a directory (search_files's starting point);
 * - `write`: create or overwrite a regular file, creating missing parent directories.
 */
export type OpenPurpose = 'file' | 'directory' | 'entry' | 'write';

/** Why something was refused, so a caller walking many files can count the refusals instead of stopping. */
export type RefusalReason =
  'missing' | 'outside' | 'denied' | 'not-a-directory' | 'is-a-directory' | 'special-file' | 'hard-link' | 'other';

export class WorkspaceRefusal extends ToolInputError {
  constructor(
    message: string,
    readonly reason: RefusalReason,
  ) {
    super(message);
  }
}

export interface OpenedInWorkspace {
  handle: FileHandle;
  /** fstat of the handle: what was opened, not what a path names now. */
  info: Stats;
  /** Where it is, relative to the workspace, once symlinks inside the workspace are followed ('.' for the root). */
  relative: string;
  /** A path naming exactly the opened object, for calls that take no descriptor (readdir); valid while the handle is open. */
  pathOfHandle: string;
}

// O_NONBLOCK: opening a FIFO or a device must never wait (a blocked open holds one of libuv's four I/O threads).
// O_NOCTTY: a terminal device is never made the worker's controlling terminal.
const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0, O_NOCTTY = 0 } = constants;
const directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;
const finalFlags: Record<OpenPurpose, number> = {
  file: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
  directory: directoryFlags,
  entry: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
  // No O_TRUNC: the file is truncated through the descriptor only once the checks below have passed.
  write: O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
};
const maxSymlinkHops = 40;

// A tagged result, not `instanceof Error`: errors from Node's fs may come from another realm (jest's sandbox).
type StepResult = { kind: 'opened'; handle: FileHandle } | { kind: 'symlink' } | { kind: 'failed'; error: NodeJS.ErrnoException };

/**
 * The workspace's root, opened once: everything below it is opened one path component at a time from this
 * descriptor, never by a path resolved twice. See openInWorkspace.
 */
export class OpenedWorkspace {
  private constructor(
    readonly given: string,
    /** The workspace's real path: every opened descriptor must lie under it. */
    readonly realRoot: string,
    private readonly root: FileHandle,
    private readonly access: DirectoryAccess,
    /** The approval policy's refusing path rules: nothing whose real path one of them matches is handed out. */
    private readonly denied: readonly DeniedPaths[] | undefined,
  ) {}

  static async open(workspace: string, access?: DirectoryAccess, denied?: readonly DeniedPaths[]): Promise<OpenedWorkspace> {
    const given = path.resolve(workspace);
    const realRoot = await realpath(given);
    const root = await open(realRoot, directoryFlags);
    const opened = new OpenedWorkspace(given, realRoot, root, access ?? (await directoryAccess()), denied);
    if ((await opened.access.realPathOf(root, realRoot)) !== realRoot) {
      await root.close();
      throw new Error(`workspace "${workspace}" changed while it was opened`);
    }
    return opened;
  }

  close(): Promise<void> {
    return this.root.close();
  }

  /** Opens what the model named, for `purpose`; the caller closes the handle. */
  async open(requested: string, purpose: OpenPurpose): Promise<OpenedInWorkspace> {
    return this.walk(workspaceComponents(this.given, this.realRoot, requested), requested, purpose);
  }

  /**
   * Opens the entry `name` of a directory opened by this workspace, for reading or listing, as search_files's walk
   * needs. A symlink is followed like any path the model names (inside only); a refusal is a WorkspaceRefusal.
   */
  async openChild(directory: OpenedInWorkspace, name: string): Promise<OpenedInWorkspace> {
    const relative = directory.relative === '.' ? name : `${directory.relative}/${name}`;
    const handle = await open(this.access.child(directory.handle, this.pathOf(directory.relative), name), finalFlags.entry).catch(
      async (error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOOP') return undefined;
        throw this.refusalFor(error, relative, 'entry');
      },
    );
    if (!handle) return this.open(relative, 'entry');
    return this.checked(handle, relative.split('/'), relative, 'entry');
  }

  private pathOf(relative: string): string {
    return relative === '.' ? this.realRoot : path.join(this.realRoot, relative);
  }

  private async walk(components: string[], requested: string, purpose: OpenPurpose): Promise<OpenedInWorkspace> {
    let pending = components;
    for (let hops = 0; hops <= maxSymlinkHops; hops++) {
      const step = await this.walkOnce(pending, requested, purpose);
      if ('handle' in step) return step;
      pending = step.restart;
    }
    throw new WorkspaceRefusal(`path "${requested}" has too many levels of symbolic links`, 'other');
  }

  /**
   * One pass from the root down `components`. Returns what it opened, or, on meeting a symlink, the components
   * to start again from (the link's target, lexically inside the workspace, then what was left).
   */
  private async walkOnce(
    components: string[],
    requested: string,
    purpose: OpenPurpose,
  ): Promise<OpenedInWorkspace | { restart: string[] }> {
    let directory = this.root;
    const position: string[] = [];
    const release = () => (directory === this.root ? Promise.resolve() : directory.close());
    try {
      if (components.length === 0) {
        // The root itself, opened anew through its descriptor ("." never is a symlink) so the caller may close it.
        const handle = await open(
          this.access.child(this.root, this.realRoot, '.'),
          finalFlags[purpose === 'write' ? 'file' : purpose],
        );
        return await this.checked(handle, [], requested, purpose);
      }
      for (let index = 0; index < components.length; index++) {
        const name = components[index];
        const last = index === components.length - 1;
        const directoryPath = this.pathOf(position.join('/') || '.');
        const childPath = this.access.child(directory, directoryPath, name);
        if (purpose === 'write') await this.assertStillInside(directory, directoryPath, requested);
        const opened = await this.openStep(
          childPath,
          last ? finalFlags[purpose] : directoryFlags,
          purpose === 'write' && !last,
          directory,
          directoryPath,
          name,
        );
        if (opened.kind === 'symlink') {
          const target = await readlink(childPath).catch(() => undefined);
          if (target === undefined)
            throw new WorkspaceRefusal(`path "${requested}" changed while it was opened; try again`, 'other');
          return { restart: [...this.linkTarget(position, target, requested), ...components.slice(index + 1)] };
        }
        if (opened.kind === 'failed') throw this.refusalFor(opened.error, requested, purpose, last);
        position.push(name);
        if (last) return await this.checked(opened.handle, position, requested, purpose);
        const previous = directory;
        directory = opened.handle;
        if (previous !== this.root) await previous.close();
      }
      throw new Error('unreachable: the loop returns at the last component');
    } finally {
      await release();
    }
  }

  /** Opens one component; a missing directory on the way to a write is created (mkdir never follows a link). */
  private async openStep(
    childPath: string,
    flags: number,
    createDirectory: boolean,
    directory: FileHandle,
    directoryPath: string,
    name: string,
  ): Promise<StepResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return { kind: 'opened', handle: await open(childPath, flags, 0o666) };
      } catch (caught) {
        const error = caught as NodeJS.ErrnoException;
        // O_NOFOLLOW refuses a symlink with ELOOP, or with ENOTDIR when O_DIRECTORY is set too.
        if (error.code === 'ELOOP' || error.code === 'ENOTDIR') {
          if (
            await readlink(childPath).then(
              () => true,
              () => false,
            )
          )
            return { kind: 'symlink' };
        }
        if (error.code === 'ENOENT' && createDirectory && attempt === 0) {
          await makeDirectoryAt(this.access, directory, directoryPath, name).catch((mkdirError: NodeJS.ErrnoException) => {
            if (mkdirError.code !== 'EEXIST') throw mkdirError;
          });
          continue;
        }
        return { kind: 'failed', error };
      }
    }
  }

  /** The components a symlink at `position` points to, refused if they leave the workspace. */
  private linkTarget(position: string[], target: string, requested: string): string[] {
    // An absolute target is taken against the workspace's real path, or against the path it was given by.
    const base =
      path.isAbsolute(target) && !isInside(this.realRoot, target) && isInside(this.given, target) ? this.given : this.realRoot;
    const joined = path.isAbsolute(target) ? path.relative(base, target) : path.join(...position, target);
    const normalized = path.normalize(joined || '.');
    if (path.isAbsolute(normalized) || normalized === '..' || normalized.startsWith(`..${path.sep}`)) {
      throw new WorkspaceRefusal(`path "${requested}" resolves through a symlink to outside the workspace`, 'outside');
    }
    return normalized.split(path.sep).filter((part) => part !== '' && part !== '.');
  }

  /**
   * Before creating anything in `directory`: it must still be inside (a directory moved out meanwhile is not). A
   * directory moved out between this check and the mkdir or O_CREAT that follows would still get an empty directory
   * or file; nothing is ever written into it, since what was opened fails its own check first.
   */
  private async assertStillInside(directory: FileHandle, directoryPath: string, requested: string): Promise<void> {
    const real = await this.access.realPathOf(directory, directoryPath);
    if (!real || !isInside(this.realRoot, real)) {
      throw new WorkspaceRefusal(`path "${requested}" is outside the workspace`, 'outside');
    }
  }

  /** Checks what was opened: inside the workspace, of the kind the purpose allows. Closes the handle on refusal. */
  private async checked(
    handle: FileHandle,
    position: string[],
    requested: string,
    purpose: OpenPurpose,
  ): Promise<OpenedInWorkspace> {
    const relative = position.join('/') || '.';
    try {
      const real = await this.access.realPathOf(handle, this.pathOf(relative));
      if (!real || !isInside(this.realRoot, real)) {
        throw new WorkspaceRefusal(`path "${requested}" is outside the workspace`, 'outside');
      }
      // Where a symlink led is only known now: the real path, relative to the workspace, meets the refusing rules.
      const refusedBy = deniedPath(this.denied, path.relative(this.realRoot, real).split(path.sep).join('/') || '.');
      if (refusedBy) {
        const why = refusedBy.reason ? `: ${refusedBy.reason}` : '';
        throw new WorkspaceRefusal(
          `path "${requested}" is refused by the approval policy's rule "${refusedBy.rule}"${why}`,
          'denied',
        );
      }
      const info = await handle.stat();
      assertKind(info, requested, purpose);
      return { handle, info, relative, pathOfHandle: this.access.self(handle, this.pathOf(relative)) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private refusalFor(error: NodeJS.ErrnoException, requested: string, purpose: OpenPurpose, last = true): Error {
    switch (error.code) {
      case 'ENOENT':
        return new WorkspaceRefusal(`${nounFor(purpose)} "${requested}" does not exist`, 'missing');
      case 'ENOTDIR':
        return last && purpose === 'directory'
          ? new WorkspaceRefusal(`"${requested}" is a file; use read_file`, 'not-a-directory')
          : new WorkspaceRefusal(`path "${requested}" goes through a file as if it were a directory`, 'not-a-directory');
      case 'EISDIR':
        return new WorkspaceRefusal(`"${requested}" is a directory`, 'is-a-directory');
      // ENXIO: a FIFO opened for writing with no reader, or a socket; neither is a regular file.
      case 'ENXIO':
      case 'ENODEV':
        return new WorkspaceRefusal(notRegularFile(requested), 'special-file');
      case 'EACCES':
      case 'EPERM':
        return new WorkspaceRefusal(`cannot open "${requested}": permission denied`, 'other');
      default:
        return error;
    }
  }
}

function notRegularFile(requested: string): string {
  return `"${requested}" is not a regular file (a FIFO, socket or device)`;
}

function nounFor(purpose: OpenPurpose): string {
  return purpose === 'directory' ? 'directory' : purpose === 'entry' ? 'path' : 'file';
}

/**
 * Regular files and directories only. A regular file with more than one hard link is refused for reading and
 * writing alike: a hard link cannot be told apart from the name it shares the file with, and that name may be
 * outside the workspace (a link planted in the workspace would otherwise read or overwrite it).
 */
function assertKind(info: Stats, requested: string, purpose: OpenPurpose): void {
  if (info.isDirectory()) {
    if (purpose === 'directory' || purpose === 'entry') return;
    throw new WorkspaceRefusal(
      purpose === 'file' ? `"${requested}" is a directory; use list_directory` : `"${requested}" is a directory`,
      'is-a-directory',
    );
  }
  if (!info.isFile()) throw new WorkspaceRefusal(notRegularFile(requested), 'special-file');
  if (purpose === 'directory') throw new WorkspaceRefusal(`"${requested}" is a file; use read_file`, 'not-a-directory');
  if (info.nlink > 1) {
    throw new WorkspaceRefusal(
      `"${requested}" has ${info.nlink} hard links; files with more than one are refused (one may be outside the workspace)`,
      'hard-link',
    );
  }
}

/**
 * Opens a path the model named, confined to the workspace without races: each component is opened from the
 * descriptor of the one before (see ./directory-access.ts), none with a final symlink followed; symlinks inside
 * the workspace are followed by walking their target the same way (at most 40 hops), those pointing out are
 * refused; missing parents of a write are created the same way; the opened descriptor's real path must be inside
 * the workspace; only regular files (with one link) and directories pass, and nothing is opened blocking.
 * The caller closes `handle`.
 */
export async function openInWorkspace(
  workspace: string,
  requested: string,
  purpose: OpenPurpose,
  denied?: readonly DeniedPaths[],
): Promise<OpenedInWorkspace> {
  const opened = await OpenedWorkspace.open(workspace, undefined, denied);
  try {
    return await opened.open(requested, purpose);
  } finally {
    await opened.close();
  }
}
