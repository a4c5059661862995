//! The registry of running rooms: finding a game's room, starting it when none runs, forgetting
//! one that ended, and sending it commands (asking and waiting, or telling and going on).

use super::command::Command;
use super::{Connection, RoomError, Rooms, secrets, task};
use crate::store::StoredGame;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::sync::{mpsc, oneshot};

/// A running room: where to send it commands, and which incarnation it is.
#[derive(Debug, Clone)]
pub(super) struct Handle {
    /// Commands are boxed: a room's channel then keeps a pointer per slot, not the largest
    /// command, which matters with thousands of rooms in memory.
    pub(super) commands: mpsc::Sender<Box<Command>>,
    pub(super) generation: u64,
    /// Whether the room holds its game: false while it takes it from the store, and once
    /// another instance has (it is then ending).
    pub(super) owned: Arc<std::sync::atomic::AtomicBool>,
}

impl Rooms {
    /// Sends a command to the game's room, starting the room if needed. A room that ended just
    /// as the command arrived is started again and asked once more.
    pub(super) async fn call<T>(
        &self,
        id: &str,
        make: impl Fn(oneshot::Sender<Result<T, RoomError>>) -> Command,
    ) -> Result<T, RoomError> {
        for _ in 0..3 {
            let (tx, rx) = oneshot::channel();
            let generation = self.tell(id, Box::new(make(tx))).await?;
            match rx.await {
                Ok(result) => return result,
                Err(_) => self.forget(id, generation),
            }
        }
        Err(RoomError::Unavailable)
    }

    /// Sends a command without waiting on it, starting the room if needed; returns the
    /// incarnation of the room that took it. A room that has ended hands it back, and a fresh
    /// one is started for it.
    pub(super) async fn tell(&self, id: &str, mut command: Box<Command>) -> Result<u64, RoomError> {
        if !secrets::is_id(id) {
            return Err(RoomError::NotFound);
        }
        for _ in 0..3 {
            if self.inner.shutdown.is_cancelled() {
                return Err(RoomError::Unavailable);
            }
            let handle = self.handle(id);
            match handle.commands.send(command).await {
                Ok(()) => return Ok(handle.generation),
                Err(mpsc::error::SendError(back)) => {
                    self.forget(id, handle.generation);
                    command = back;
                }
            }
        }
        Err(RoomError::Unavailable)
    }

    fn handle(&self, id: &str) -> Handle {
        self.start(id, None)
    }

    /// The game's room, started if it is not running: from `seed` when given (a game just
    /// stored), else from the store.
    pub(super) fn start(&self, id: &str, seed: Option<StoredGame>) -> Handle {
        let mut map = self.inner.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = map.get(id) {
            return h.clone();
        }
        let generation = self.inner.generation.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(256);
        let handle = Handle {
            commands: tx,
            generation,
            owned: Arc::default(),
        };
        map.insert(id.to_string(), handle.clone());
        let rooms = self.clone();
        let id = id.to_string();
        let owned = handle.owned.clone();
        self.inner
            .tasks
            .spawn(Box::pin(task::run(rooms, id, generation, owned, rx, seed)));
        handle
    }

    /// The game's room, if it is running.
    pub(super) fn running(&self, id: &str) -> Option<Handle> {
        let map = self.inner.map.lock().unwrap_or_else(|e| e.into_inner());
        map.get(id).cloned()
    }

    /// Removes a room from the registry if it is still the given incarnation.
    pub(super) fn forget(&self, id: &str, generation: u64) {
        let mut map = self.inner.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.get(id).is_some_and(|h| h.generation == generation) {
            map.remove(id);
        }
    }

    /// Sends a connection's command to its room without waiting on it: straight to the room it
    /// connected to while that one runs, else through the registry.
    pub(super) async fn to_room(
        &self,
        id: &str,
        conn: &Connection,
        mut command: Box<Command>,
    ) -> Result<(), RoomError> {
        if let Some(room) = &conn.room {
            match room.commands.send(command).await {
                Ok(()) => return Ok(()),
                Err(mpsc::error::SendError(back)) => command = back,
            }
        }
        self.tell(id, command).await.map(drop)
    }
}
