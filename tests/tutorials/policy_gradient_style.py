"""REINFORCE on a tiny corridor environment, TF1 style (2017-2018 RL posts): a softmax
policy, tf.multinomial / tf.random.categorical for actions, discounted returns computed in
numpy and fed back, a baseline, gradient accumulation over episodes with placeholders."""
import numpy as np
import tensorflow as tf

np.random.seed(2)
tf.set_random_seed(2)
N_STATES, N_ACTIONS, GAMMA = 6, 2, 0.95


class Corridor:
    """Start in the middle; action 1 moves right, 0 left; reward 1 at the right end."""

    def reset(self):
        self.pos = N_STATES // 2
        return self._obs()

    def _obs(self):
        return np.eye(N_STATES, dtype=np.float32)[self.pos]

    def step(self, action):
        self.pos = max(0, min(N_STATES - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos in (0, N_STATES - 1)
        reward = 1.0 if self.pos == N_STATES - 1 else -0.01
        return self._obs(), reward, done


def discount_rewards(r, gamma=GAMMA):
    discounted = np.zeros_like(r)
    running_add = 0.0
    for t in reversed(range(r.size)):
        running_add = running_add * gamma + r[t]
        discounted[t] = running_add
    return discounted


state_in = tf.placeholder(tf.float32, [None, N_STATES], name="state_in")
with tf.variable_scope("policy"):
    hidden = tf.layers.dense(state_in, 8, activation=tf.nn.relu,
                             kernel_initializer=tf.glorot_normal_initializer())
    logits = tf.layers.dense(hidden, N_ACTIONS, use_bias=False)
    probs = tf.nn.softmax(logits)
sample_multinomial = tf.multinomial(logits, 1, output_dtype=tf.int32)
sample_categorical = tf.random.categorical(logits, 3, seed=11)
greedy = tf.argmax(probs, axis=1)

reward_holder = tf.placeholder(tf.float32, [None], name="reward")
action_holder = tf.placeholder(tf.int32, [None], name="action")
indexes = tf.range(0, tf.shape(probs)[0]) * tf.shape(probs)[1] + action_holder
responsible = tf.gather(tf.reshape(probs, [-1]), indexes)
loss = -tf.reduce_mean(tf.log(responsible) * reward_holder)
neg_logp = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=action_holder,
                                                          logits=logits)
loss2 = tf.reduce_mean(neg_logp * reward_holder)
entropy = -tf.reduce_sum(probs * tf.log(probs + 1e-8), axis=1)

tvars = tf.trainable_variables()
gradient_holders = []
for idx in range(len(tvars)):
    gradient_holders.append(tf.placeholder(tf.float32, name=str(idx) + "_holder"))
gradients = tf.gradients(loss, tvars)
optimizer = tf.train.AdamOptimizer(learning_rate=0.05)
update_batch = optimizer.apply_gradients(zip(gradient_holders, tvars))
print([v.name for v in tvars], [g.name for g in gradient_holders])
print(sample_multinomial.dtype, sample_multinomial.shape, sample_categorical.dtype,
      sample_categorical.shape, sample_categorical.op.get_attr("seed2"))
print(responsible.name, loss.name, neg_logp.shape)

env = Corridor()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    grad_buffer = [np.zeros(v.shape.as_list(), np.float32) for v in tvars]
    total_reward, total_length = [], []
    for episode in range(60):
        s = env.reset()
        history = []
        for _ in range(30):
            a = sess.run(sample_multinomial, {state_in: [s]})[0, 0]
            s1, r, d = env.step(a)
            history.append([s, a, r])
            s = s1
            if d:
                break
        history = np.array(history, dtype=object)
        rewards = discount_rewards(np.array(history[:, 2], dtype=np.float32))
        rewards -= rewards.mean()
        feed = {state_in: np.vstack(history[:, 0]), action_holder: history[:, 1].astype(np.int32),
                reward_holder: rewards}
        grads, l1, l2 = sess.run([gradients, loss, loss2], feed)
        for i, g in enumerate(grads):
            grad_buffer[i] += g
        if episode % 5 == 4:
            sess.run(update_batch, dict(zip(gradient_holders, grad_buffer)))
            grad_buffer = [g * 0 for g in grad_buffer]
        total_reward.append(sum(history[:, 2]))
        total_length.append(len(history))
        if episode % 15 == 14:
            print("episode %d mean reward %.3f mean length %.1f losses %.4f %.4f" % (
                episode, np.mean(total_reward[-15:]), np.mean(total_length[-15:]), l1, l2))
    states = np.eye(N_STATES, dtype=np.float32)
    print("greedy", sess.run(greedy, {state_in: states}))
    print("entropy", np.round(sess.run(entropy, {state_in: states}), 3))
    print("categorical", sess.run(sample_categorical, {state_in: states[:2]}))
