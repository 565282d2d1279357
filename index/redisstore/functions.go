package redisstore

// The store's server-side code: a Redis function library (Redis 7.0),
// loaded on every master by Open. Functions, unlike scripts loaded with
// SCRIPT LOAD, are replicated, so a promoted replica has them. Every
// function touches keys of one slot only.
//
// The library's name carries a version: a change of any function is a
// new library, loaded beside the old one, so that writers of two
// versions can share a cluster.
const (
	libName = "neardup_v1"

	fnSetRecord = "neardup_v1_setrec" // KEYS record, marker; ARGV epoch, value → the old value's first 5 bytes (its number), or nil
	fnDelRecord = "neardup_v1_delrec" // KEYS record, marker; ARGV epoch → the old number, or nil
	fnRemoveNum = "neardup_v1_rmnum"  // KEYS bucket; ARGV record length, number offset, number → postings removed
)

// errLost is the prefix of the error the record functions return when
// the slot's marker is missing or belongs to another epoch.
const errLost = "NEARDUPLOST"

const library = `#!lua name=neardup_v1

-- The marker of the slot must hold the archive's epoch: a node that
-- restarted empty has lost it, and writing there would pass a partial
-- archive for a whole one.
local function check(marker, epoch)
  if redis.call('HGET', marker, 'e') ~= epoch then
    return redis.error_reply('NEARDUPLOST this slot has lost the archive (its marker is gone: a node restarted empty?)')
  end
  return nil
end

-- Sets a record, counting a new document in the slot's marker. Returns
-- the old record's number (its first 5 bytes), or nil.
redis.register_function('neardup_v1_setrec', function(keys, args)
  local err = check(keys[2], args[1])
  if err then return err end
  local old = redis.call('GETRANGE', keys[1], 0, 4)
  redis.call('SET', keys[1], args[2])
  if old == '' then
    redis.call('HINCRBY', keys[2], 'd', 1)
    return nil
  end
  return old
end)

-- Deletes a record, uncounting it. Returns its number, or nil.
redis.register_function('neardup_v1_delrec', function(keys, args)
  local err = check(keys[2], args[1])
  if err then return err end
  local old = redis.call('GETRANGE', keys[1], 0, 4)
  if old == '' then return nil end
  redis.call('DEL', keys[1])
  redis.call('HINCRBY', keys[2], 'd', -1)
  return old
end)

-- Removes from a bucket of fixed-size records every record whose
-- number (5 bytes at offset off) is num. Returns how many it removed.
redis.register_function('neardup_v1_rmnum', function(keys, args)
  local v = redis.call('GET', keys[1])
  if not v then return 0 end
  local size, off, num = tonumber(args[1]), tonumber(args[2]), args[3]
  local parts, start, removed, i = {}, 1, 0, 1
  while true do
    local j = string.find(v, num, i, true)
    if not j then break end
    local r = j - 1 - off -- the record's start, 0-based
    if r >= 0 and r % size == 0 then
      if r + 1 > start then parts[#parts + 1] = string.sub(v, start, r) end
      start = r + size + 1
      removed = removed + 1
      i = start
    else
      i = j + 1
    end
  end
  if removed == 0 then return 0 end
  if start <= #v then parts[#parts + 1] = string.sub(v, start) end
  if #parts == 0 then
    redis.call('DEL', keys[1])
  else
    redis.call('SET', keys[1], table.concat(parts))
  end
  return removed
end)
`
